package apiserver

import (
	"net/http"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"
)

// HealthPaths are the paths the kubelet probes without credentials.
var HealthPaths = []string{"/healthz", "/livez", "/readyz"}

// RestrictAnonymous lets anonymous requests through a only for the given
// paths; elsewhere a request without credentials is unauthenticated (401).
// The delegated authenticator of the generic apiserver always admits
// anonymous requests, and this server has nothing to show to strangers but
// its health.
func RestrictAnonymous(a authenticator.Request, paths ...string) authenticator.Request {
	if a == nil {
		return nil
	}
	allowed := make(map[string]bool, len(paths))
	for _, p := range paths {
		allowed[p] = true
	}
	return authenticator.RequestFunc(func(req *http.Request) (*authenticator.Response, bool, error) {
		resp, ok, err := a.AuthenticateRequest(req)
		if ok && resp != nil && resp.User != nil && resp.User.GetName() == user.Anonymous && !allowed[req.URL.Path] {
			return nil, false, nil
		}
		return resp, ok, err
	})
}
