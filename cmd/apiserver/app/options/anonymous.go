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

package options

import (
	"net/http"
	"strings"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"
)

// probePaths are the only paths that accept requests without credentials:
// the kubelet's liveness and readiness probes carry none.
var probePaths = []string{"/healthz", "/livez", "/readyz"}

// withoutAnonymous turns off anonymous access, which the delegated
// authenticator of k8s.io/apiserver always enables: a request that only
// authenticates as system:anonymous is unauthenticated (401), except on the
// probe paths (and their per-check sub-paths).
func withoutAnonymous(a authenticator.Request) authenticator.Request {
	if a == nil {
		return nil
	}
	return authenticator.RequestFunc(func(req *http.Request) (*authenticator.Response, bool, error) {
		resp, ok, err := a.AuthenticateRequest(req)
		if ok && resp != nil && resp.User != nil && resp.User.GetName() == user.Anonymous && !isProbePath(req.URL.Path) {
			return nil, false, err
		}
		return resp, ok, err
	})
}

func isProbePath(path string) bool {
	for _, p := range probePaths {
		if path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}
