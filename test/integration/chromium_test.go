// Copyright The update-status-apiserver Authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

package integration

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/update-status/apiserver/internal/localstack"
)

// envChromium names the Chromium binary; the Makefile sets it from
// hack/ensure-chromium.sh.
const envChromium = "CHROMIUM"

// chromiumContext fails the test when there is no Chromium, and returns
// the test's context, ended after timeout.
func chromiumContext(t *testing.T, timeout time.Duration) context.Context {
	t.Helper()
	if _, err := chromiumBinary(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	t.Cleanup(cancel)
	return ctx
}

// chromiumBinary returns $CHROMIUM, or chromium on PATH.
func chromiumBinary() (string, error) {
	return localstack.ToolBinary(envChromium, "chromium", "chromium-browser")
}

// browser is a headless Chromium driven over the DevTools protocol on a
// pipe (--remote-debugging-pipe: commands on fd 3, answers on fd 4, each
// message a JSON object ended by a NUL byte). A page stays open while the
// test changes the cluster, so the test sees what a user sees: the page
// following the stream, without reloads.
type browser struct {
	cmd    *exec.Cmd
	toChr  *os.File
	stderr *strings.Builder

	mu      sync.Mutex
	nextID  int
	pending map[int]chan cdpMessage
	closed  chan struct{}
}

type cdpMessage struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Params    any             `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// startBrowser starts Chromium; t.Cleanup stops it.
func startBrowser(t *testing.T) *browser {
	t.Helper()
	bin, err := chromiumBinary()
	if err != nil {
		t.Fatal(err)
	}
	cmdR, cmdW, err := os.Pipe() // test -> chromium (its fd 3)
	if err != nil {
		t.Fatal(err)
	}
	resR, resW, err := os.Pipe() // chromium (its fd 4) -> test
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--hide-scrollbars", "--mute-audio",
		"--remote-debugging-pipe", "--user-data-dir="+t.TempDir(), "--window-size=1400,1000", "about:blank")
	cmd.ExtraFiles = []*os.File{cmdR, resW}
	b := &browser{cmd: cmd, toChr: cmdW, stderr: &strings.Builder{}, pending: map[int]chan cdpMessage{}, closed: make(chan struct{})}
	cmd.Stderr = &lockedWriter{b: b.stderr}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	_ = cmdR.Close()
	_ = resW.Close()
	go b.read(resR)
	t.Cleanup(func() {
		_ = b.toChr.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return b
}

type lockedWriter struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.b.Len() < 1<<16 {
		w.b.Write(p)
	}
	return len(p), nil
}

func (b *browser) read(r *os.File) {
	defer close(b.closed)
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		raw, err := br.ReadBytes(0)
		if err != nil {
			return
		}
		var m cdpMessage
		if json.Unmarshal(raw[:len(raw)-1], &m) != nil || m.ID == 0 {
			continue // an event: the test polls instead
		}
		b.mu.Lock()
		ch := b.pending[m.ID]
		delete(b.pending, m.ID)
		b.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	}
}

// call sends one command (to a page when session is set) and decodes its
// result into out.
func (b *browser) call(ctx context.Context, session, method string, params, out any) error {
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	ch := make(chan cdpMessage, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	data, err := json.Marshal(cdpMessage{ID: id, Method: method, SessionID: session, Params: params})
	if err != nil {
		return err
	}
	if _, err := b.toChr.Write(append(data, 0)); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return fmt.Errorf("%s: %s (%d)", method, m.Error.Message, m.Error.Code)
		}
		if out != nil {
			return json.Unmarshal(m.Result, out)
		}
		return nil
	case <-b.closed:
		return fmt.Errorf("%s: chromium exited: %s", method, b.stderr.String())
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// page is one tab.
type page struct {
	b       *browser
	session string
}

// open opens url in a new tab of width x height CSS pixels.
func (b *browser) open(ctx context.Context, url string, width, height int) (*page, error) {
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		return nil, err
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att); err != nil {
		return nil, err
	}
	p := &page{b: b, session: att.SessionID}
	if err := b.call(ctx, p.session, "Emulation.setDeviceMetricsOverride",
		map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}, nil); err != nil {
		return nil, err
	}
	if err := b.call(ctx, p.session, "Page.navigate", map[string]any{"url": url}, nil); err != nil {
		return nil, err
	}
	return p, nil
}

// eval evaluates a JavaScript expression and decodes its value into out.
func (p *page) eval(ctx context.Context, expr string, out any) error {
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := p.b.call(ctx, p.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &res); err != nil {
		return err
	}
	if res.ExceptionDetails != nil {
		return errors.New("evaluate: " + res.ExceptionDetails.Text)
	}
	return json.Unmarshal(res.Result.Value, out)
}

// dom returns the rendered document's HTML.
func (p *page) dom(ctx context.Context) (string, error) {
	var s string
	err := p.eval(ctx, "document.documentElement.outerHTML", &s)
	return s, err
}

// screenshot writes a PNG of the whole page to path.
func (p *page) screenshot(ctx context.Context, path string) error {
	var metrics struct {
		CSSContentSize struct {
			Width, Height float64
		} `json:"cssContentSize"`
	}
	if err := p.b.call(ctx, p.session, "Page.getLayoutMetrics", nil, &metrics); err != nil {
		return err
	}
	var shot struct {
		Data string `json:"data"`
	}
	clip := map[string]any{"x": 0, "y": 0, "width": metrics.CSSContentSize.Width, "height": metrics.CSSContentSize.Height, "scale": 1}
	if err := p.b.call(ctx, p.session, "Page.captureScreenshot",
		map[string]any{"format": "png", "clip": clip, "captureBeyondViewport": true}, &shot); err != nil {
		return err
	}
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, png, 0o644)
}

// waitFor polls the page's DOM every 200ms until check returns nil, and
// returns the last DOM; it fails the test with the last complaint.
func (p *page) waitFor(ctx context.Context, t *testing.T, timeout time.Duration, what string, check func(dom string) error) string {
	t.Helper()
	var dom string
	var last error
	if wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		var err error
		if dom, err = p.dom(ctx); err != nil {
			last = err
		} else {
			last = check(dom)
		}
		return last == nil, nil
	}) != nil {
		t.Fatalf("after %v the page does not show %s: %v", timeout, what, last)
	}
	return dom
}
