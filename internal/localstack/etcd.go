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

package localstack

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"time"
)

// Etcd is a single-member etcd on loopback, without TLS.
type Etcd struct {
	// ClientURL is where clients connect, e.g. http://127.0.0.1:23790.
	ClientURL string
	Process   *Process
}

// StartEtcd starts bin with its data under dir and waits until it is healthy.
func StartEtcd(ctx context.Context, bin, dir string) (*Etcd, error) {
	ports, err := FreePorts(2)
	if err != nil {
		return nil, err
	}
	client := fmt.Sprintf("http://127.0.0.1:%d", ports[0])
	peer := fmt.Sprintf("http://127.0.0.1:%d", ports[1])
	p, err := StartProcess("etcd", filepath.Join(dir, "etcd.log"), bin,
		"--name=it",
		"--data-dir="+filepath.Join(dir, "etcd-data"),
		"--listen-client-urls="+client,
		"--advertise-client-urls="+client,
		"--listen-peer-urls="+peer,
		"--initial-advertise-peer-urls="+peer,
		"--initial-cluster=it="+peer,
		"--log-level=warn",
		// Throw-away data: durability is not worth the fsyncs.
		"--unsafe-no-fsync",
	)
	if err != nil {
		return nil, err
	}
	e := &Etcd{ClientURL: client, Process: p}
	err = pollUntil(ctx, 30*time.Second, p, func() (bool, error) {
		resp, err := http.Get(client + "/health")
		if err != nil {
			return false, nil
		}
		defer func() { _ = resp.Body.Close() }()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode == http.StatusOK && bytes.Contains(body, []byte(`"health":"true"`)), nil
	})
	if err != nil {
		p.Stop(5 * time.Second)
		return nil, fmt.Errorf("etcd did not become healthy: %w", err)
	}
	return e, nil
}

// Keys lists every key stored in etcd whose name starts with prefix (all keys
// when prefix is empty). It talks to etcd's gRPC gateway (JSON over HTTP), so
// the project needs no etcd client library.
func (e *Etcd) Keys(ctx context.Context, prefix string) ([]string, error) {
	key, rangeEnd := []byte(prefix), prefixEnd([]byte(prefix))
	if prefix == "" {
		key = []byte{0}
	}
	reqBody, err := json.Marshal(map[string]any{
		"key":       base64.StdEncoding.EncodeToString(key),
		"range_end": base64.StdEncoding.EncodeToString(rangeEnd),
		"keys_only": true,
	})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.ClientURL+"/v3/kv/range", bytes.NewReader(reqBody))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	body, err := OKBody(http.DefaultClient.Do(req))
	if err != nil {
		return nil, fmt.Errorf("etcd range: %w", err)
	}
	var out struct {
		KVs []struct {
			Key string `json:"key"`
		} `json:"kvs"`
		Count string `json:"count"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		return nil, fmt.Errorf("etcd range: %w", err)
	}
	keys := make([]string, 0, len(out.KVs))
	for _, kv := range out.KVs {
		k, err := base64.StdEncoding.DecodeString(kv.Key)
		if err != nil {
			return nil, fmt.Errorf("etcd range: key %q: %w", kv.Key, err)
		}
		keys = append(keys, string(k))
	}
	return keys, nil
}

// prefixEnd returns the smallest key greater than every key with prefix
// ({0} = no upper bound, as etcd defines range_end).
func prefixEnd(prefix []byte) []byte {
	end := bytes.Clone(prefix)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return []byte{0}
}

// pollUntil calls cond every 100 ms until it returns true, an error, the
// timeout passes or p (if not nil) exits.
func pollUntil(ctx context.Context, timeout time.Duration, p *Process, cond func() (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var lastErr error
	for {
		if p != nil {
			if err := p.exitError(); err != nil {
				return err
			}
		}
		ok, err := cond()
		if ok {
			return nil
		}
		if err != nil {
			lastErr = err
		}
		select {
		case <-ctx.Done():
			if lastErr != nil {
				return fmt.Errorf("%w (last error: %v)", ctx.Err(), lastErr)
			}
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// OKBody reads and closes the body of the answer to a request, resp and err
// as http.Client.Do returns them. Any status but 200 is an error naming the
// request, the status and the start of the body.
func OKBody(resp *http.Response, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s %s: %s: %.200s", resp.Request.Method, resp.Request.URL.Redacted(), resp.Status, bytes.TrimSpace(body))
	}
	return body, nil
}
