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

package app

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned/fake"
)

func TestWebFlags(t *testing.T) {
	deps := Deps{NewClient: func(string) (versioned.Interface, error) { return fake.NewSimpleClientset(), nil }}
	t.Setenv("KUBECONFIG", "")
	if _, errOut, code := run(t, deps, "web"); code == 0 || !strings.Contains(errOut, "--kubeconfig (or KUBECONFIG) is required") {
		t.Errorf("without a kubeconfig: exit %d, %q", code, errOut)
	}
	if _, errOut, code := run(t, deps, "web", "--kubeconfig", "k", "--listen", "8080"); code == 0 || !strings.Contains(errOut, "invalid --listen") {
		t.Errorf("a listen address without a port: exit %d, %q", code, errOut)
	}
	if _, errOut, code := run(t, deps, "web", "--kubeconfig", "k", "--hosted-cluster", "demo"); code == 0 || !strings.Contains(errOut, `invalid --hosted-cluster "demo"`) {
		t.Errorf("a hosted cluster without a namespace: exit %d, %q", code, errOut)
	}
}

func TestIsLoopback(t *testing.T) {
	for host, want := range map[string]bool{"127.0.0.1": true, "localhost": true, "::1": true, "127.0.0.2": true,
		"": false, "0.0.0.0": false, "10.0.0.1": false, "example.com": false} {
		if got := isLoopback(host); got != want {
			t.Errorf("isLoopback(%q) = %v", host, got)
		}
	}
}

// chanWriter hands each write to the test as it happens.
type chanWriter struct {
	ch chan string
}

func (b *chanWriter) Write(p []byte) (int, error) {
	b.ch <- string(p)
	return len(p), nil
}

func TestWebServesUntilInterrupted(t *testing.T) {
	client := fake.NewSimpleClientset()
	client.Resources = []*metav1.APIResourceList{{GroupVersion: v1alpha1.SchemeGroupVersion.String(),
		APIResources: []metav1.APIResource{{Name: "updatestatuses"}}}}
	t.Setenv("KUBECONFIG", "from-env")
	var used string
	out := &chanWriter{ch: make(chan string, 16)}
	deps := Deps{Out: out, ErrOut: io.Discard, NewClient: func(k string) (versioned.Interface, error) { used = k; return client, nil }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- Run(ctx, deps, []string{"web", "--listen", "127.0.0.1:0"}) }()
	var url string
	select {
	case line := <-out.ch:
		m := regexp.MustCompile(`http://\S+/`).FindString(line)
		if m == "" {
			t.Fatalf("no URL in %q", line)
		}
		url = m
	case code := <-done:
		t.Fatalf("exited %d before serving", code)
	case <-time.After(10 * time.Second):
		t.Fatal("not serving after 10s")
	}
	if used != "from-env" {
		t.Errorf("kubeconfig %q, want $KUBECONFIG", used)
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "Cluster update status") {
		t.Errorf("GET /: %d %.200s", resp.StatusCode, body)
	}
	// An open event stream does not hold up the shutdown.
	events, err := http.Get(url + "events")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = events.Body.Close() }()
	// A request naming another host is refused (DNS rebinding).
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Host = "attacker.example"
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("a foreign Host: %v %v", resp, err)
	} else {
		_ = resp.Body.Close()
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d after the interruption", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("still running 10s after the interruption")
	}
}
