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
