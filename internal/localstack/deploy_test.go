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
	"crypto/tls"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	cliflag "k8s.io/component-base/cli/flag"
)

// The names artifacts/deploy uses.
const (
	deployNamespace  = "update-status"
	deployName       = "update-status-apiserver" // Deployment, Service, ServiceAccount, PDB
	deployReaderRole = "update-status-reader"
	// servingSecret is the Secret the base Deployment serves its certificate
	// from; cert-manager or the service CA operator fills it.
	servingSecret = "update-status-apiserver-tls"
)

// intermediateCiphers are the TLS 1.2 suites of OpenShift's Intermediate
// profile in Go/IANA names.
var intermediateCiphers = []string{
	"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
	"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
	"TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
	"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
	"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
	"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
}

// deployVariants are the directories under artifacts/deploy meant to be
// applied, with what each must have.
var deployVariants = []struct {
	dir       string
	openshift bool // service CA, monitoring, SCC, TLS profile, alerts
	ha        bool // two replicas on different nodes and a PDB
	hosted    bool // a management cluster: reads HyperShift and Cluster API objects
}{
	{dir: ".", ha: true}, // the same as kubernetes
	{dir: "kubernetes", ha: true},
	{dir: "kubernetes-single-node"},
	{dir: "openshift", openshift: true, ha: true},
	{dir: "openshift-single-node", openshift: true},
	{dir: "openshift-management-cluster", openshift: true, ha: true, hosted: true},
}

// renderDeploy returns the objects `kubectl kustomize` renders for a
// directory under artifacts/deploy.
func renderDeploy(t *testing.T, dir string) []*unstructured.Unstructured {
	t.Helper()
	kubectl := os.Getenv(EnvKubectl)
	if kubectl == "" {
		kubectl = "kubectl"
	}
	if _, err := exec.LookPath(kubectl); err != nil {
		t.Skipf("no kubectl to render the kustomizations: %v", err)
	}
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(kubectl, "kustomize", filepath.Join(root, "artifacts", "deploy", dir))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kubectl kustomize %s: %v\n%s", dir, err, stderr.String())
	}
	f := filepath.Join(t.TempDir(), "rendered.yaml")
	if err := os.WriteFile(f, out, 0o600); err != nil {
		t.Fatal(err)
	}
	objs, err := ReadManifests(nil, f)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// rendered indexes rendered objects by kind.
type rendered map[string][]*unstructured.Unstructured

func (r rendered) one(t *testing.T, kind, name string) *unstructured.Unstructured {
	t.Helper()
	for _, o := range r[kind] {
		if o.GetName() == name {
			return o
		}
	}
	t.Fatalf("no %s %s", kind, name)
	return nil
}

func str(o *unstructured.Unstructured, path ...string) string {
	s, _, _ := unstructured.NestedString(o.Object, path...)
	return s
}

func slice(o map[string]any, path ...string) []any {
	s, _, _ := unstructured.NestedSlice(o, path...)
	return s
}

// TestDeployVariants renders every variant and checks the conventions of
// docs/deploy.md.
func TestDeployVariants(t *testing.T) {
	for _, v := range deployVariants {
		t.Run(v.dir, func(t *testing.T) {
			r := rendered{}
			for _, o := range renderDeploy(t, v.dir) {
				r[o.GetKind()] = append(r[o.GetKind()], o)
			}
			ns := r.one(t, "Namespace", deployNamespace)
			if ns.GetLabels()["pod-security.kubernetes.io/enforce"] != "restricted" {
				t.Errorf("namespace labels %v: not PSA restricted", ns.GetLabels())
			}
			checkReaderRules(t, r.one(t, "ClusterRole", deployReaderRole))
			metrics := r.one(t, "ClusterRole", "update-status-metrics-reader")
			if want := []any{map[string]any{"nonResourceURLs": []any{"/metrics"}, "verbs": []any{"get"}}}; !reflect.DeepEqual(slice(metrics.Object, "rules"), want) {
				t.Errorf("metrics reader rules %v, want %v", slice(metrics.Object, "rules"), want)
			}
			checkServing(t, r, v.openshift)
			checkAvailability(t, r, v.ha)
			checkNetworkPolicies(t, r, v.openshift)
			checkOpenShift(t, r, v.openshift)
			checkHostedSources(t, r, v.hosted)
		})
	}
}

// checkHostedSources: only the management-cluster variants read the hosted
// clusters' objects, with list and watch of exactly the HyperShift and
// Cluster API resources the server reads (list and watch: its informers), bound to the server's
// ServiceAccount.
func checkHostedSources(t *testing.T, r rendered, hosted bool) {
	t.Helper()
	const name = "update-status-apiserver:hosted-sources"
	var role *unstructured.Unstructured
	for _, o := range r["ClusterRole"] {
		if o.GetName() == name {
			role = o
		}
	}
	if !hosted {
		if role != nil {
			t.Errorf("ClusterRole %s outside a management-cluster variant", name)
		}
		return
	}
	if role == nil {
		t.Fatalf("no ClusterRole %s", name)
	}
	want := map[string][]any{
		"hypershift.openshift.io": {"hostedclusters", "nodepools", "hostedcontrolplanes", "controlplanecomponents"},
		"cluster.x-k8s.io":        {"machines", "machinesets", "machinedeployments"},
	}
	rules := slice(role.Object, "rules")
	if len(rules) != len(want) {
		t.Fatalf("%s rules %v, want one per group of %v", name, rules, want)
	}
	for _, rule := range rules {
		m := rule.(map[string]any)
		groups, _ := m["apiGroups"].([]any)
		if len(groups) != 1 || !reflect.DeepEqual(m["resources"], want[groups[0].(string)]) || !reflect.DeepEqual(m["verbs"], []any{"list", "watch"}) {
			t.Errorf("%s rule %v, want list, watch of %v", name, m, want)
		}
	}
	binding := r.one(t, "ClusterRoleBinding", name)
	subjects := slice(binding.Object, "subjects")
	if len(subjects) != 1 || subjects[0].(map[string]any)["name"] != deployName || subjects[0].(map[string]any)["namespace"] != deployNamespace {
		t.Errorf("%s subjects %v, want the server's ServiceAccount", name, subjects)
	}
}

// checkServing: the server serves the certificate of servingSecret and the
// APIService never skips TLS verification; the CA is injected by
// cert-manager (Kubernetes) or the service CA operator (OpenShift).
func checkServing(t *testing.T, r rendered, openshift bool) {
	t.Helper()
	if len(r["APIService"]) != 1 {
		t.Fatalf("%d APIServices, want 1", len(r["APIService"]))
	}
	as := r["APIService"][0]
	if skip, found, _ := unstructured.NestedFieldNoCopy(as.Object, "spec", "insecureSkipTLSVerify"); found && skip != false {
		t.Errorf("APIService has insecureSkipTLSVerify: %v", skip)
	}
	dep := r.one(t, "Deployment", deployName)
	args := containerArgs(dep)
	if !slices.Contains(args, "--tls-cert-file=/var/run/serving-cert/tls.crt") || !slices.Contains(args, "--tls-private-key-file=/var/run/serving-cert/tls.key") {
		t.Errorf("args %v do not serve /var/run/serving-cert", args)
	}
	var mounted bool
	for _, vol := range slice(dep.Object, "spec", "template", "spec", "volumes") {
		if s, _, _ := unstructured.NestedString(vol.(map[string]any), "secret", "secretName"); s == servingSecret {
			mounted = true
		}
	}
	if !mounted {
		t.Errorf("no volume of the Secret %s", servingSecret)
	}

	annotations := as.GetAnnotations()
	svc := r.one(t, "Service", deployName)
	if openshift {
		if annotations["service.beta.openshift.io/inject-cabundle"] != "true" {
			t.Errorf("APIService annotations %v: no service CA injection", annotations)
		}
		if got := svc.GetAnnotations()["service.beta.openshift.io/serving-cert-secret-name"]; got != servingSecret {
			t.Errorf("Service serving-cert-secret-name %q, want %s", got, servingSecret)
		}
		if len(r["Certificate"]) > 0 {
			t.Error("cert-manager Certificates on OpenShift")
		}
		return
	}
	from := annotations["cert-manager.io/inject-ca-from"]
	certNS, certName, _ := strings.Cut(from, "/")
	if certNS != deployNamespace {
		t.Fatalf("APIService annotations %v: no cert-manager injection from %s", annotations, deployNamespace)
	}
	cert := r.one(t, "Certificate", certName)
	dns, _, _ := unstructured.NestedStringSlice(cert.Object, "spec", "dnsNames")
	if str(cert, "spec", "secretName") != servingSecret || !slices.Contains(dns, "update-status-apiserver.update-status.svc") ||
		!slices.Contains(dns, "update-status-apiserver.update-status.svc.cluster.local") {
		t.Errorf("serving Certificate: secretName %q, dnsNames %v", str(cert, "spec", "secretName"), dns)
	}
	// The chain: self-signed Issuer -> CA Certificate -> CA Issuer -> serving Certificate.
	issuer := r.one(t, "Issuer", str(cert, "spec", "issuerRef", "name"))
	ca := r.one(t, "Certificate", str(issuer, "spec", "ca", "secretName"))
	if isCA, _, _ := unstructured.NestedBool(ca.Object, "spec", "isCA"); !isCA || str(ca, "spec", "secretName") != str(issuer, "spec", "ca", "secretName") {
		t.Errorf("CA Certificate %s: isCA %v, secretName %q", ca.GetName(), isCA, str(ca, "spec", "secretName"))
	}
	root := r.one(t, "Issuer", str(ca, "spec", "issuerRef", "name"))
	if _, found, _ := unstructured.NestedMap(root.Object, "spec", "selfSigned"); !found {
		t.Errorf("Issuer %s of the CA is not self-signed", root.GetName())
	}
}

// checkAvailability: HA variants run two replicas on different nodes, spread
// over zones, roll one at a time and have a PDB; single-node ones run one
// replica and have neither.
func checkAvailability(t *testing.T, r rendered, ha bool) {
	t.Helper()
	dep := r.one(t, "Deployment", deployName)
	replicas, _, _ := unstructured.NestedInt64(dep.Object, "spec", "replicas")
	required := slice(dep.Object, "spec", "template", "spec", "affinity", "podAntiAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
	spread := slice(dep.Object, "spec", "template", "spec", "topologySpreadConstraints")
	surge, _, _ := unstructured.NestedFieldNoCopy(dep.Object, "spec", "strategy", "rollingUpdate", "maxSurge")
	unavailable, _, _ := unstructured.NestedFieldNoCopy(dep.Object, "spec", "strategy", "rollingUpdate", "maxUnavailable")
	if !ha {
		if replicas != 1 || len(required) != 0 || len(r["PodDisruptionBudget"]) != 0 {
			t.Errorf("single node: replicas %d, required anti-affinity %v, %d PDBs; want 1, none, none", replicas, required, len(r["PodDisruptionBudget"]))
		}
		return
	}
	if replicas != 2 {
		t.Errorf("replicas %d, want 2", replicas)
	}
	if len(required) != 1 || required[0].(map[string]any)["topologyKey"] != "kubernetes.io/hostname" {
		t.Errorf("required anti-affinity %v, want one term on kubernetes.io/hostname", required)
	}
	if len(spread) != 1 || spread[0].(map[string]any)["topologyKey"] != "topology.kubernetes.io/zone" ||
		spread[0].(map[string]any)["whenUnsatisfiable"] != "ScheduleAnyway" || spread[0].(map[string]any)["maxSkew"] != int64(1) {
		t.Errorf("topology spread %v, want maxSkew 1 over zones, ScheduleAnyway", spread)
	}
	if surge != int64(0) || unavailable != int64(1) {
		t.Errorf("rolling update maxSurge %v, maxUnavailable %v; want 0 and 1", surge, unavailable)
	}
	pdb := r.one(t, "PodDisruptionBudget", deployName)
	if minAvailable, _, _ := unstructured.NestedInt64(pdb.Object, "spec", "minAvailable"); minAvailable != 1 {
		t.Errorf("PDB minAvailable %d, want 1", minAvailable)
	}
}

// checkNetworkPolicies: all traffic is denied but the serving port, the
// kube-apiserver, DNS and, on OpenShift, the Thanos querier.
func checkNetworkPolicies(t *testing.T, r rendered, openshift bool) {
	t.Helper()
	deny := r.one(t, "NetworkPolicy", "default-deny")
	if sel, _, _ := unstructured.NestedMap(deny.Object, "spec", "podSelector"); len(sel) != 0 ||
		!reflect.DeepEqual(slice(deny.Object, "spec", "policyTypes"), []any{"Ingress", "Egress"}) || len(slice(deny.Object, "spec", "ingress")) != 0 || len(slice(deny.Object, "spec", "egress")) != 0 {
		t.Errorf("default-deny: %v", deny.Object["spec"])
	}
	ingress := map[string]bool{}
	egress := map[string]bool{}
	toMonitoring := map[string]bool{}
	for _, np := range r["NetworkPolicy"] {
		if np.GetNamespace() != deployNamespace {
			t.Errorf("NetworkPolicy %s in %s", np.GetName(), np.GetNamespace())
		}
		for dir, into := range map[string]map[string]bool{"ingress": ingress, "egress": egress} {
			for _, rule := range slice(np.Object, "spec", dir) {
				rule := rule.(map[string]any)
				peers := slice(rule, "from")
				if dir == "egress" {
					peers = slice(rule, "to")
				}
				target := into
				if len(peers) == 1 && reflect.DeepEqual(peers[0], map[string]any{"namespaceSelector": map[string]any{"matchLabels": map[string]any{"kubernetes.io/metadata.name": "openshift-monitoring"}}}) {
					target = toMonitoring
				} else if len(peers) > 0 {
					t.Errorf("NetworkPolicy %s: %s peers %v", np.GetName(), dir, peers)
					continue
				}
				for _, p := range slice(rule, "ports") {
					p := p.(map[string]any)
					target[fmt.Sprintf("%v/%v", p["protocol"], p["port"])] = true
				}
			}
		}
	}
	if !reflect.DeepEqual(ingress, map[string]bool{"TCP/8443": true}) {
		t.Errorf("ingress allowed %v, want TCP/8443 only", ingress)
	}
	want := map[string]bool{"TCP/443": true, "TCP/6443": true, "UDP/53": true, "TCP/53": true, "UDP/5353": true, "TCP/5353": true}
	if !reflect.DeepEqual(egress, want) {
		t.Errorf("egress allowed %v, want %v", egress, want)
	}
	if openshift != reflect.DeepEqual(toMonitoring, map[string]bool{"TCP/9091": true}) {
		t.Errorf("egress to openshift-monitoring %v (OpenShift: %v), want TCP/9091 on OpenShift only", toMonitoring, openshift)
	}
}

// checkOpenShift: the OpenShift variants are scraped by and read alerts from
// the platform monitoring, ask for restricted-v2 and follow the Intermediate
// TLS profile; the Kubernetes variants have none of it.
func checkOpenShift(t *testing.T, r rendered, openshift bool) {
	t.Helper()
	dep := r.one(t, "Deployment", deployName)
	args := containerArgs(dep)
	alerts := []string{
		"--alerts-url=https://thanos-querier.openshift-monitoring.svc:9091/api/v1/alerts",
		"--alerts-ca-file=/var/run/secrets/kubernetes.io/serviceaccount/service-ca.crt",
		"--alerts-token-file=/var/run/secrets/kubernetes.io/serviceaccount/token",
	}
	if !openshift {
		for _, a := range args {
			if strings.HasPrefix(a, "--alerts-") || strings.HasPrefix(a, "--tls-cipher-suites") {
				t.Errorf("Kubernetes variant has %s", a)
			}
		}
		for _, kind := range []string{"ServiceMonitor", "PrometheusRule"} {
			if len(r[kind]) > 0 {
				t.Errorf("Kubernetes variant has a %s", kind)
			}
		}
		return
	}
	if got := r.one(t, "Namespace", deployNamespace).GetLabels()["openshift.io/cluster-monitoring"]; got != "true" {
		t.Errorf("namespace label openshift.io/cluster-monitoring %q, want true", got)
	}
	if got, _, _ := unstructured.NestedString(dep.Object, "spec", "template", "metadata", "annotations", "openshift.io/required-scc"); got != "restricted-v2" {
		t.Errorf("pod annotation openshift.io/required-scc %q, want restricted-v2", got)
	}
	for _, a := range alerts {
		if !slices.Contains(args, a) {
			t.Errorf("args %v lack %s", args, a)
		}
	}

	// The Intermediate profile: TLS 1.2 and its suites, each a TLS 1.2 suite
	// Go knows by that name; each flag once.
	var minVersion, suites []string
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--tls-min-version="); ok {
			minVersion = append(minVersion, v)
		}
		if v, ok := strings.CutPrefix(a, "--tls-cipher-suites="); ok {
			suites = append(suites, v)
		}
	}
	if !reflect.DeepEqual(minVersion, []string{"VersionTLS12"}) || len(suites) != 1 {
		t.Fatalf("--tls-min-version %v, --tls-cipher-suites %v; want VersionTLS12 and one list", minVersion, suites)
	}
	if got := strings.Split(suites[0], ","); !reflect.DeepEqual(got, intermediateCiphers) {
		t.Errorf("cipher suites %v, want %v", got, intermediateCiphers)
	}
	known := map[string]bool{}
	for _, cs := range tls.CipherSuites() {
		if slices.Contains(cs.SupportedVersions, tls.VersionTLS12) {
			known[cs.Name] = true
		}
	}
	for _, c := range intermediateCiphers {
		if !known[c] {
			t.Errorf("%s is not a secure TLS 1.2 cipher suite of crypto/tls", c)
		}
	}
	// The flags' own parsers accept them.
	if _, err := cliflag.TLSCipherSuites(strings.Split(suites[0], ",")); err != nil {
		t.Errorf("--tls-cipher-suites: %v", err)
	}
	if _, err := cliflag.TLSVersion(minVersion[0]); err != nil {
		t.Errorf("--tls-min-version: %v", err)
	}

	// Scraping: the ServiceMonitor, the discovery Role and /metrics for
	// openshift-monitoring/prometheus-k8s.
	sm := r.one(t, "ServiceMonitor", deployName)
	endpoints := slice(sm.Object, "spec", "endpoints")
	wantEndpoint := map[string]any{
		"port": "https", "path": "/metrics", "scheme": "https", "interval": "30s",
		"bearerTokenFile": "/var/run/secrets/kubernetes.io/serviceaccount/token",
		"tlsConfig": map[string]any{
			"caFile":     "/etc/prometheus/configmaps/serving-certs-ca-bundle/service-ca.crt",
			"serverName": "update-status-apiserver.update-status.svc",
		},
	}
	if len(endpoints) != 1 || !reflect.DeepEqual(endpoints[0], wantEndpoint) {
		t.Errorf("ServiceMonitor endpoints %v, want %v", endpoints, wantEndpoint)
	}
	if sel, _, _ := unstructured.NestedStringMap(sm.Object, "spec", "selector", "matchLabels"); !reflect.DeepEqual(sel, r.one(t, "Service", deployName).GetLabels()) {
		t.Errorf("ServiceMonitor selects %v, not the Service's labels", sel)
	}
	prometheus := []any{map[string]any{"kind": "ServiceAccount", "name": "prometheus-k8s", "namespace": "openshift-monitoring"}}
	var discovery, metrics bool
	for _, rb := range append(r["RoleBinding"], r["ClusterRoleBinding"]...) {
		if !reflect.DeepEqual(slice(rb.Object, "subjects"), prometheus) {
			continue
		}
		switch ref := str(rb, "roleRef", "name"); {
		case rb.GetKind() == "ClusterRoleBinding" && ref == "update-status-metrics-reader":
			metrics = true
		case rb.GetKind() == "RoleBinding" && rb.GetNamespace() == deployNamespace:
			role := r.one(t, "Role", ref)
			want := []any{map[string]any{"apiGroups": []any{""}, "resources": []any{"services", "endpoints", "pods"}, "verbs": []any{"get", "list", "watch"}}}
			discovery = role.GetNamespace() == deployNamespace && reflect.DeepEqual(slice(role.Object, "rules"), want)
		}
	}
	if !discovery || !metrics {
		t.Errorf("prometheus-k8s: discovery Role bound %v, metrics reader bound %v; want both", discovery, metrics)
	}
	rule := r.one(t, "PrometheusRule", deployName)
	if rule.GetNamespace() != deployNamespace || len(slice(rule.Object, "spec", "groups")) == 0 {
		t.Errorf("PrometheusRule in %q with groups %v", rule.GetNamespace(), slice(rule.Object, "spec", "groups"))
	}
}

// containerArgs returns the args of the Deployment's first container.
func containerArgs(dep *unstructured.Unstructured) []string {
	containers := slice(dep.Object, "spec", "template", "spec", "containers")
	if len(containers) == 0 {
		return nil
	}
	args, _, _ := unstructured.NestedStringSlice(containers[0].(map[string]any), "args")
	return args
}
