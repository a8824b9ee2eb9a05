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
	"net/http/httptest"
	"testing"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"
)

func TestWithoutAnonymous(t *testing.T) {
	tests := []struct {
		name, user, path string
		wantOK           bool
	}{
		{"anonymous, resource", user.Anonymous, "/apis/update.openshift.io/v1alpha1/updatestatuses", false},
		{"anonymous, metrics", user.Anonymous, "/metrics", false},
		{"anonymous, livez", user.Anonymous, "/livez", true},
		{"anonymous, readyz", user.Anonymous, "/readyz", true},
		{"anonymous, readyz check", user.Anonymous, "/readyz/ping", true},
		{"anonymous, healthz", user.Anonymous, "/healthz", true},
		{"anonymous, look-alike path", user.Anonymous, "/readyzz", false},
		{"real user, resource", "alice", "/apis/update.openshift.io/v1alpha1/updatestatuses", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inner := authenticator.RequestFunc(func(*http.Request) (*authenticator.Response, bool, error) {
				return &authenticator.Response{User: &user.DefaultInfo{Name: tt.user}}, true, nil
			})
			_, ok, err := withoutAnonymous(inner).AuthenticateRequest(httptest.NewRequest("GET", tt.path, nil))
			if err != nil || ok != tt.wantOK {
				t.Fatalf("got ok=%v err=%v, want ok=%v", ok, err, tt.wantOK)
			}
		})
	}
	if withoutAnonymous(nil) != nil {
		t.Fatal("a nil authenticator must stay nil")
	}
}
