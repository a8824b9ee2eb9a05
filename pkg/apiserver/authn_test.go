package apiserver

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"
)

func TestRestrictAnonymous(t *testing.T) {
	anonymous := &authenticator.Response{User: &user.DefaultInfo{Name: user.Anonymous}}
	alice := &authenticator.Response{User: &user.DefaultInfo{Name: "alice"}}
	boom := errors.New("boom")
	tests := []struct {
		name    string
		resp    *authenticator.Response
		ok      bool
		err     error
		path    string
		wantOK  bool
		wantErr error
	}{
		{name: "anonymous probe", resp: anonymous, ok: true, path: "/readyz", wantOK: true},
		{name: "anonymous elsewhere", resp: anonymous, ok: true, path: "/apis/update.openshift.io/v1alpha1", wantOK: false},
		{name: "anonymous metrics", resp: anonymous, ok: true, path: "/metrics", wantOK: false},
		{name: "anonymous sub-path of a probe", resp: anonymous, ok: true, path: "/readyz/ping", wantOK: false},
		{name: "a user anywhere", resp: alice, ok: true, path: "/metrics", wantOK: true},
		{name: "errors pass through", err: boom, path: "/metrics", wantErr: boom},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inner := authenticator.RequestFunc(func(*http.Request) (*authenticator.Response, bool, error) { return tt.resp, tt.ok, tt.err })
			resp, ok, err := RestrictAnonymous(inner, HealthPaths...).AuthenticateRequest(httptest.NewRequest("GET", tt.path, nil))
			if ok != tt.wantOK || !errors.Is(err, tt.wantErr) || (ok && resp == nil) {
				t.Fatalf("got %v, %v, %v", resp, ok, err)
			}
		})
	}
	if RestrictAnonymous(nil) != nil {
		t.Error("a nil authenticator must stay nil (authentication disabled)")
	}
}
