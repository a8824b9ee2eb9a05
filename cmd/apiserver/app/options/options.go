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

// Package options holds the command-line options of update-status-apiserver
// and turns them into the server's configuration.
package options

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	configclient "github.com/openshift/client-go/config/clientset/versioned"
	mcfgclient "github.com/openshift/client-go/machineconfiguration/clientset/versioned"
	genericfeatures "k8s.io/apiserver/pkg/features"
	genericapiserver "k8s.io/apiserver/pkg/server"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/component-base/logs"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/utils/clock"
	netutils "k8s.io/utils/net"

	"github.com/update-status/apiserver/internal/flagcheck"
	"github.com/update-status/apiserver/pkg/apiserver"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
	"github.com/update-status/apiserver/pkg/sources"
	"github.com/update-status/apiserver/pkg/view"
)

// Defaults that differ from the generic apiserver's.
const (
	// defaultSecurePort is unprivileged, so the server runs as non-root.
	defaultSecurePort = 8443
	// Clients of the sources: a cluster of 5,000 nodes relists quickly.
	clientQPS   = 50
	clientBurst = 100
	// DefaultMaxRequestsInFlight is the default of --max-requests-inflight:
	// the generic apiserver's 400 LISTs of 5,000 NodeProgressInsights at once
	// take gigabytes (docs/reliability.md).
	DefaultMaxRequestsInFlight = 40
)

// Options are every flag of the server.
type Options struct {
	SecureServing  *genericoptions.SecureServingOptionsWithLoopback
	Authentication *genericoptions.DelegatingAuthenticationOptions
	Authorization  *genericoptions.DelegatingAuthorizationOptions
	Audit          *genericoptions.AuditOptions
	Features       *genericoptions.FeatureOptions
	Logging        *logs.Options

	// Kubeconfig points the source informers at the cluster; in-cluster
	// configuration when empty.
	Kubeconfig string
	// FoldDelay, QuietGap, DiscoveryInterval and the Watch* fields tune the
	// view, the sources and the watch fan-out.
	FoldDelay         time.Duration
	QuietGap          time.Duration
	DiscoveryInterval time.Duration
	WatchStallTimeout time.Duration
	MaxWatches        int64
	EncodingRevisions int
	// MaxRequestsInFlight bounds the requests other than watches (GETs and
	// LISTs) served at once: the generic apiserver's max-in-flight filter.
	MaxRequestsInFlight int
	// Alerts configure the alert source (--alerts-*); off without a URL.
	Alerts sources.AlertsOptions
}

var overrideGates sync.Once

// NewOptions returns the options with their defaults.
func NewOptions() *Options {
	// Serve sendInitialEvents (WatchList) unless --feature-gates turns it off:
	// client-go's informers use it by default.
	overrideGates.Do(func() {
		_ = utilfeature.DefaultMutableFeatureGate.OverrideDefault(genericfeatures.WatchList, true)
	})

	o := &Options{
		SecureServing:  genericoptions.NewSecureServingOptions().WithLoopback(),
		Authentication: genericoptions.NewDelegatingAuthenticationOptions(),
		Authorization:  genericoptions.NewDelegatingAuthorizationOptions(),
		Audit:          genericoptions.NewAuditOptions(),
		Features:       genericoptions.NewFeatureOptions(),
		Logging:        logs.NewOptions(),

		FoldDelay:           view.DefaultFoldDelay,
		QuietGap:            view.DefaultQuietGap,
		DiscoveryInterval:   sources.DefaultDiscoveryInterval,
		WatchStallTimeout:   apiserver.DefaultWatchStallTimeout,
		MaxWatches:          apiserver.DefaultMaxWatches,
		EncodingRevisions:   apiserver.DefaultEncodingRevisions,
		MaxRequestsInFlight: DefaultMaxRequestsInFlight,
		Alerts: sources.AlertsOptions{
			Interval: sources.DefaultAlertsInterval,
			Timeout:  sources.DefaultAlertsTimeout,
			MaxBytes: sources.DefaultAlertsMaxBytes,
			Keep:     sources.DefaultAlertsKeep,
		},
	}
	o.SecureServing.BindPort = defaultSecurePort
	// The kube-apiserver's aggregation layer multiplexes every client's
	// requests to this server, watches included, over few HTTP/2 connections:
	// allow 1,000 streams on one, as the library's RecommendedOptions do for
	// aggregated servers (unset, the library allows 100). docs/benchmarks.md
	// (What was tried) has the figures.
	o.SecureServing.HTTP2MaxStreamsPerConnection = 1000
	// Without --tls-cert-file the self-signed certificate stays in memory, so
	// the server also runs on a read-only root filesystem.
	o.SecureServing.ServerCert.CertDirectory = ""
	// No priority-and-fairness: this server has no FlowSchemas of its own.
	o.Features.EnablePriorityAndFairness = false
	return o
}

// Flags returns the flags in named sections, for --help.
func (o *Options) Flags() cliflag.NamedFlagSets {
	var fss cliflag.NamedFlagSets
	fs := fss.FlagSet("update status")
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig,
		"Path to the kubeconfig of the cluster whose update is reported (ClusterVersion, ClusterOperators, MachineConfigPools, MachineConfigs, Nodes). In-cluster configuration when empty.")
	fs.DurationVar(&o.FoldDelay, "fold-delay", o.FoldDelay,
		fmt.Sprintf("The fold window: a source change after a quiet window (or an isolated one, see --fold-quiet-gap) is computed at once; other changes that arrive within this long after a computation ended are gathered into the next one (at most %v).", view.MaxFoldDelay))
	fs.DurationVar(&o.QuietGap, "fold-quiet-gap", o.QuietGap,
		fmt.Sprintf("Separates a stream of source changes from a burst, each source (informer) apart: a change is isolated, computed at once without waiting for the fold window, while its source's running count of gaps shorter than this (up for a short gap, down for a long one) stays below 3. A source's steady stream slower than one change per gap is computed change by change, whatever other sources do; a faster one once per --fold-delay after its first three changes. 0 treats no change as isolated (at most %v).", view.MaxFoldDelay))
	fs.DurationVar(&o.DiscoveryInterval, "source-discovery-interval", o.DiscoveryInterval,
		"How often to look for source APIs that are not served (e.g. MachineConfigPool) or stopped being served.")
	fs.DurationVar(&o.WatchStallTimeout, "watch-stall-timeout", o.WatchStallTimeout,
		"How long one write of a watch stream to a client (an event, or a batch of per-insight events) may take before the stream is closed. A client that reads slowly gets fewer, newer states; one that stops reading is disconnected.")
	fs.Int64Var(&o.MaxWatches, "max-watches", o.MaxWatches,
		"How many update.openshift.io watches this server keeps open at once; a watch beyond it is answered 429 Too Many Requests with a Retry-After (client-go waits and retries). Each open watch costs memory (docs/reliability.md).")
	fs.IntVar(&o.EncodingRevisions, "encoding-cache-revisions", o.EncodingRevisions,
		"How many of the newest revisions of updatestatuses/cluster keep their encodings (per format) for the GETs and watch events that follow, so that each revision is encoded once per format, not once per client. Each kept revision costs up to a few times the object's size; 0 encodes every answer anew (docs/benchmarks.md).")
	fs.IntVar(&o.MaxRequestsInFlight, "max-requests-inflight", o.MaxRequestsInFlight,
		"How many requests other than watches (GETs, LISTs) this server serves at once; beyond it a request is answered 429 Too Many Requests with a Retry-After (client-go waits and retries). A LIST holds its objects and their encoding until it is written, so this bounds the memory a burst of LISTs takes (docs/reliability.md).")
	utilfeature.DefaultMutableFeatureGate.AddFlag(fs)

	as := fss.FlagSet("alerts")
	as.StringVar(&o.Alerts.URL, "alerts-url", o.Alerts.URL,
		"Prometheus-compatible alerts endpoint (http or https) whose firing alerts become health insights, e.g. https://thanos-querier.openshift-monitoring.svc:9091/api/v1/alerts. Alerts are not read when empty; the Available condition says so.")
	as.StringVar(&o.Alerts.CAFile, "alerts-ca-file", o.Alerts.CAFile,
		"PEM file of the certificate authorities that verify an https --alerts-url (on OpenShift the service CA, /var/run/secrets/kubernetes.io/serviceaccount/service-ca.crt). The system roots when empty. Read again every five minutes, and used when its certificates changed.")
	as.StringVar(&o.Alerts.TokenFile, "alerts-token-file", o.Alerts.TokenFile,
		"File holding the bearer token sent to --alerts-url (on OpenShift /var/run/secrets/kubernetes.io/serviceaccount/token), read again every minute and right after the endpoint answers 401, so that a rotated token is used. No token when empty.")
	as.DurationVar(&o.Alerts.Interval, "alerts-interval", o.Alerts.Interval,
		"How often to read the alerts. After a failure the reads back off, with jitter, up to five intervals.")
	as.DurationVar(&o.Alerts.Timeout, "alerts-timeout", o.Alerts.Timeout,
		"How long one read of the alerts may take, the answer's body included.")
	as.Int64Var(&o.Alerts.MaxBytes, "alerts-max-bytes", o.Alerts.MaxBytes,
		"The largest answer of --alerts-url read, in bytes; a larger one is a failed read.")
	as.DurationVar(&o.Alerts.Keep, "alerts-keep", o.Alerts.Keep,
		"How long after reads start failing the alerts of the last good read are still used; they are dropped then. 0 drops them at the first failure.")

	o.SecureServing.AddFlags(fss.FlagSet("secure serving"))
	o.Authentication.AddFlags(fss.FlagSet("authentication"))
	o.Authorization.AddFlags(fss.FlagSet("authorization"))
	o.Audit.AddFlags(fss.FlagSet("audit"))
	o.Features.AddFlags(fss.FlagSet("features"))
	logsapi.AddFlags(o.Logging, fss.FlagSet("logging"))
	return fss
}

// Complete fills in what depends on other options: a self-signed serving
// certificate when none is given.
func (o *Options) Complete() error {
	if err := o.SecureServing.MaybeDefaultWithSelfSignedCerts("localhost", nil, []net.IP{netutils.ParseIPSloppy("127.0.0.1")}); err != nil {
		return fmt.Errorf("creating a self-signed certificate: %w", err)
	}
	return nil
}

// Validate returns every problem with the options, aggregated.
func (o *Options) Validate() error {
	var errs []error
	errs = append(errs, o.SecureServing.Validate()...)
	errs = append(errs, o.Authentication.Validate()...)
	errs = append(errs, o.Authorization.Validate()...)
	errs = append(errs, o.Audit.Validate()...)
	errs = append(errs, o.Features.Validate()...)
	if o.Features.EnablePriorityAndFairness {
		errs = append(errs, errors.New("--enable-priority-and-fairness is not supported: this server has no flow-control configuration"))
	}
	if o.FoldDelay < 0 || o.FoldDelay > view.MaxFoldDelay {
		errs = append(errs, fmt.Errorf("--fold-delay must be within [0, %v], got %v", view.MaxFoldDelay, o.FoldDelay))
	}
	if o.QuietGap < 0 || o.QuietGap > view.MaxFoldDelay {
		errs = append(errs, fmt.Errorf("--fold-quiet-gap must be within [0, %v], got %v", view.MaxFoldDelay, o.QuietGap))
	}
	errs = flagcheck.Positive(errs, "source-discovery-interval", o.DiscoveryInterval)
	errs = flagcheck.Positive(errs, "watch-stall-timeout", o.WatchStallTimeout)
	errs = flagcheck.NotNegative(errs, "encoding-cache-revisions", o.EncodingRevisions)
	errs = flagcheck.Positive(errs, "max-watches", o.MaxWatches)
	errs = flagcheck.Positive(errs, "max-requests-inflight", o.MaxRequestsInFlight)
	errs = append(errs, o.Alerts.Validate()...)
	if err := logsapi.Validate(o.Logging, nil, nil).ToAggregate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// ApplyLogging configures logging from the logging flags. Call it once per
// process, after Validate and before anything worth logging.
func (o *Options) ApplyLogging() error {
	return logsapi.ValidateAndApply(o.Logging, nil)
}

// Config builds the server configuration: the generic apiserver part from
// the serving, authentication, authorization, audit and feature options, and
// the sources from the kubeconfig.
func (o *Options) Config() (*apiserver.Config, error) {
	generic, err := o.ApiserverConfig()
	if err != nil {
		return nil, err
	}
	restConfig, err := o.restConfig()
	if err != nil {
		return nil, err
	}
	clients, err := newClients(restConfig)
	if err != nil {
		return nil, err
	}
	clk := clock.RealClock{}
	srcOpts := sources.Options{Clock: clk, DiscoveryInterval: o.DiscoveryInterval}
	if o.Alerts.URL != "" {
		alertOpts := o.Alerts
		alertOpts.Clock = clk
		if srcOpts.Alerts, err = sources.NewAlerts(alertOpts); err != nil {
			return nil, err
		}
	}
	srcs, err := sources.New(clients, srcOpts)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(restConfig)
	if err != nil {
		return nil, err
	}
	hosted, err := sources.NewHosted(dyn, sources.HostedOptions{Clock: clk, DiscoveryInterval: o.DiscoveryInterval, Discovery: clients.Kube.Discovery()})
	if err != nil {
		return nil, err
	}
	return &apiserver.Config{
		GenericConfig: generic,
		ExtraConfig: apiserver.ExtraConfig{
			Sources:           srcs,
			Hosted:            hosted,
			Clock:             clk,
			FoldDelay:         o.FoldDelay,
			QuietGap:          o.QuietGap,
			WatchStallTimeout: o.WatchStallTimeout,
			MaxWatches:        o.MaxWatches,
			// 0 turns the cache off: negative in the server's config.
			EncodingRevisions: cmp.Or(o.EncodingRevisions, -1),
		},
	}, nil
}

// ApiserverConfig builds the generic apiserver configuration.
func (o *Options) ApiserverConfig() (*genericapiserver.Config, error) {
	cfg := apiserver.NewGenericConfig()
	if err := o.SecureServing.ApplyTo(&cfg.SecureServing, &cfg.LoopbackClientConfig); err != nil {
		return nil, err
	}
	if err := o.Authentication.ApplyTo(&cfg.Authentication, cfg.SecureServing, cfg.OpenAPIConfig); err != nil {
		return nil, err
	}
	cfg.Authentication.Authenticator = withoutAnonymous(cfg.Authentication.Authenticator)
	if err := o.Authorization.ApplyTo(&cfg.Authorization); err != nil {
		return nil, err
	}
	if err := o.Audit.ApplyTo(cfg); err != nil {
		return nil, err
	}
	if err := o.Features.ApplyTo(cfg, nil, nil); err != nil {
		return nil, err
	}
	// Without priority and fairness the generic handler chain bounds
	// concurrency with the max-in-flight filter.
	cfg.MaxRequestsInFlight = o.MaxRequestsInFlight
	return cfg, nil
}

// restConfig is the client configuration of the sources.
func (o *Options) restConfig() (*rest.Config, error) {
	var cfg *rest.Config
	var err error
	if o.Kubeconfig != "" {
		loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
			&clientcmd.ClientConfigLoadingRules{ExplicitPath: o.Kubeconfig}, &clientcmd.ConfigOverrides{})
		cfg, err = loader.ClientConfig()
	} else {
		cfg, err = rest.InClusterConfig()
	}
	if err != nil {
		return nil, fmt.Errorf("building the client configuration of the sources: %w", err)
	}
	cfg.QPS, cfg.Burst = clientQPS, clientBurst
	return rest.AddUserAgent(cfg, apiserver.Name), nil
}

// newClients returns the clients of the sources. Core types travel as
// protobuf; the OpenShift types are CRDs and speak JSON only.
func newClients(cfg *rest.Config) (sources.Clients, error) {
	kubeCfg := rest.CopyConfig(cfg)
	kubeCfg.ContentType = "application/vnd.kubernetes.protobuf"
	kubeCfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	kube, err := kubernetes.NewForConfig(kubeCfg)
	if err != nil {
		return sources.Clients{}, err
	}
	config, err := configclient.NewForConfig(cfg)
	if err != nil {
		return sources.Clients{}, err
	}
	mcfg, err := mcfgclient.NewForConfig(cfg)
	if err != nil {
		return sources.Clients{}, err
	}
	contributions, err := versioned.NewForConfig(cfg)
	if err != nil {
		return sources.Clients{}, err
	}
	return sources.Clients{Kube: kube, Config: config, MachineConfiguration: mcfg, Contributions: contributions}, nil
}

// Run builds the server and serves until ctx is done.
func (o *Options) Run(ctx context.Context) error {
	cfg, err := o.Config()
	if err != nil {
		return err
	}
	srv, err := cfg.Complete().New()
	if err != nil {
		return err
	}
	return srv.Run(ctx)
}
