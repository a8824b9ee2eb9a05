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

// Package apiserver assembles the aggregated API server of update.openshift.io:
// the scheme and codecs, the generic apiserver configuration (OpenAPI v2 and
// v3, effective version), and the server that wires the sources, the live
// view and the REST storage together.
package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/healthz"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/insights"
	"github.com/update-status/apiserver/pkg/monitoring"
	hostedregistry "github.com/update-status/apiserver/pkg/registry/hosted"
	"github.com/update-status/apiserver/pkg/registry/insightobjects"
	readinessregistry "github.com/update-status/apiserver/pkg/registry/readiness"
	"github.com/update-status/apiserver/pkg/registry/updatestatus"
	"github.com/update-status/apiserver/pkg/registry/virtualstore"
	"github.com/update-status/apiserver/pkg/sources"
	"github.com/update-status/apiserver/pkg/view"
)

// Sources is what the server needs from its sources; *sources.Set
// implements it.
type Sources interface {
	view.Snapshotter
	// AddListener registers a function called on every source change.
	AddListener(func(source, object string))
	// Run runs the informers until ctx is done.
	Run(ctx context.Context)
	// SyncCheck returns nil once the initial sync is done.
	SyncCheck() error
}

// HostedSources are the sources of the hosted clusters of a management
// cluster; *sources.Hosted implements it.
type HostedSources interface {
	hostedregistry.Source
	// Run runs the informers until ctx is done.
	Run(ctx context.Context)
	// SyncCheck returns nil once the initial sync is done.
	SyncCheck() error
}

// noHostedSources are the hosted sources of a server given none: no hosted
// cluster, synced from the start.
type noHostedSources struct{}

func (noHostedSources) AddListener(func(string))    {}
func (noHostedSources) HostedClusterKeys() []string { return nil }
func (noHostedSources) InitialSyncDone() bool       { return true }
func (noHostedSources) Run(context.Context)         {}
func (noHostedSources) SyncCheck() error            { return nil }
func (noHostedSources) Snapshot(key string) sources.HostedSnapshot {
	return sources.HostedSnapshot{Key: key, Sources: &insights.HostedSources{}, InitialSyncDone: true}
}

// verdictsOf returns the function that takes the engine's verdicts on the
// UpdateInformers, when the sources write them into their status
// (*sources.Set does).
func verdictsOf(s Sources) func([]insights.Verdict) {
	if r, ok := s.(interface{ RecordVerdicts([]insights.Verdict) }); ok {
		return r.RecordVerdicts
	}
	return nil
}

// ExtraConfig holds the dependencies and tuning of this server.
type ExtraConfig struct {
	// Sources provides the snapshots. Required.
	Sources Sources
	// Hosted provides the snapshots of the hosted clusters; without it
	// the hosted kinds are served empty.
	Hosted HostedSources
	// Computer computes the status; insights.NewEngine() when nil.
	Computer view.Computer
	// Clock is the time source of everything; the real clock when nil.
	Clock clock.WithTicker
	// FoldDelay is the view's fold delay (view.Config.FoldDelay).
	FoldDelay time.Duration
	// QuietGap is the view's quiet gap (view.Config.QuietGap).
	QuietGap time.Duration
	// WatchStallTimeout bounds one write of a watch stream to a client
	// (withWatchWriter); DefaultWatchStallTimeout when 0.
	WatchStallTimeout time.Duration
	// MaxWatches bounds the update.openshift.io watches open at once; more
	// are answered 429 (withWatchLimit). 0 means DefaultMaxWatches; negative,
	// no limit.
	MaxWatches int64
	// EncodingRevisions is how many revisions of the UpdateStatus keep
	// their encodings for later GETs and watch events
	// (pkg/registry/updatestatus). 0 means
	// DefaultEncodingRevisions; negative, none: every GET and
	// watch event is encoded by its handler.
	EncodingRevisions int
}

// DefaultEncodingRevisions is the default of ExtraConfig.EncodingRevisions.
const DefaultEncodingRevisions = updatestatus.DefaultEncodingRevisions

// Config is the configuration of the server.
type Config struct {
	GenericConfig *genericapiserver.Config
	ExtraConfig   ExtraConfig
}

type completedConfig struct {
	GenericConfig genericapiserver.CompletedConfig
	ExtraConfig   *ExtraConfig
}

// CompletedConfig is a Config after Complete; only it can build a server.
type CompletedConfig struct {
	*completedConfig
}

// Complete fills in defaults and installs this server's handler filters.
func (c *Config) Complete() CompletedConfig {
	if c.ExtraConfig.Computer == nil {
		c.ExtraConfig.Computer = insights.NewEngine()
	}
	if c.ExtraConfig.Clock == nil {
		c.ExtraConfig.Clock = clock.RealClock{}
	}
	if c.ExtraConfig.Hosted == nil {
		c.ExtraConfig.Hosted = noHostedSources{}
	}
	if c.ExtraConfig.WatchStallTimeout == 0 {
		c.ExtraConfig.WatchStallTimeout = DefaultWatchStallTimeout
	}
	stall := c.ExtraConfig.WatchStallTimeout
	if c.ExtraConfig.MaxWatches == 0 {
		c.ExtraConfig.MaxWatches = DefaultMaxWatches
	}
	maxWatches := c.ExtraConfig.MaxWatches
	if c.ExtraConfig.EncodingRevisions == 0 {
		c.ExtraConfig.EncodingRevisions = DefaultEncodingRevisions
	}

	build := c.GenericConfig.BuildHandlerChainFunc
	if build == nil {
		build = genericapiserver.DefaultBuildHandlerChain
	}
	serializer := c.GenericConfig.Serializer
	c.GenericConfig.BuildHandlerChainFunc = func(apiHandler http.Handler, gc *genericapiserver.Config) http.Handler {
		// Innermost, after authentication, authorization, audit and the
		// timeout: each filter applies to update.openshift.io requests only.
		inner := withListGzip(withReadOnly(apiHandler, serializer))
		return build(withWatchLimit(withWatchWriter(inner, stall, clock.RealClock{}), maxWatches, serializer), gc)
	}
	return CompletedConfig{&completedConfig{
		GenericConfig: c.GenericConfig.Complete(nil),
		ExtraConfig:   &c.ExtraConfig,
	}}
}

// UpdateStatusServer is the aggregated API server. Its background loops (the
// sources and the view) start in a post-start hook and stop with the server.
type UpdateStatusServer struct {
	GenericAPIServer *genericapiserver.GenericAPIServer

	sources Sources
	view    *view.View
	store   *virtualstore.Store
	// insights are the stores of the per-insight kinds.
	insights insightobjects.Stores
	// readiness publishes updatereadinesses and updatecandidates.
	readiness *readinessregistry.Publisher
	// hostedSources and hosted compute and publish the hosted kinds.
	hostedSources HostedSources
	hosted        *hostedregistry.Publisher
}

// New builds the server and installs the update.openshift.io API group.
func (c CompletedConfig) New() (*UpdateStatusServer, error) {
	extra := c.ExtraConfig
	if extra.Sources == nil {
		return nil, errors.New("apiserver: ExtraConfig.Sources is required")
	}
	registerMetrics()

	generic, err := c.GenericConfig.New(Name, genericapiserver.NewEmptyDelegate())
	if err != nil {
		return nil, err
	}
	store, err := updatestatus.NewStore(Scheme)
	if err != nil {
		return nil, err
	}
	insightStores, err := insightobjects.NewStores(Scheme)
	if err != nil {
		return nil, err
	}
	var main *updatestatus.REST // made below; revisions are published once the server runs
	v, err := view.New(view.Config{
		Snapshots: extra.Sources,
		Computer:  extra.Computer,
		Clock:     extra.Clock,
		FoldDelay: extra.FoldDelay,
		QuietGap:  extra.QuietGap,
		Verdicts:  verdictsOf(extra.Sources),
		Publish: func(r *view.Revision) {
			if err := store.Publish(r.ResourceVersion, []runtime.Object{r.Object}, r.Synced); err != nil {
				klog.ErrorS(err, "Cannot publish the UpdateStatus revision", "resourceVersion", r.ResourceVersion)
			} else {
				main.Published(r.Object)
			}
			if err := insightStores.Publish(r.ResourceVersion, &r.Insights, r.Synced); err != nil {
				klog.ErrorS(err, "Cannot publish the insight objects of the revision", "resourceVersion", r.ResourceVersion)
			}
		},
	})
	if err != nil {
		return nil, err
	}
	extra.Sources.AddListener(v.Trigger)
	readinessPublisher, err := readinessregistry.NewPublisher(extra.Sources, extra.Clock)
	if err != nil {
		return nil, err
	}
	hostedPublisher, err := hostedregistry.NewPublisher(extra.Hosted, Scheme, hostedregistry.Options{Clock: extra.Clock,
		FoldDelay: extra.FoldDelay, QuietGap: extra.QuietGap})
	if err != nil {
		return nil, err
	}
	s := &UpdateStatusServer{GenericAPIServer: generic, sources: extra.Sources, view: v, store: store, insights: insightStores, readiness: readinessPublisher,
		hostedSources: extra.Hosted, hosted: hostedPublisher}
	// The update metrics follow the served revision. /metrics is the
	// process's: with several servers in one process (tests), the last one
	// created reports.
	updateMetrics.SetSource(func() *update.UpdateStatus {
		if r := v.Current(); r != nil && r.Synced {
			return r.Object
		}
		return nil
	})

	updateMetrics.SetHostedSource(hostedPublisher.Statuses)

	codec := Codecs.LegacyCodec(v1alpha1.SchemeGroupVersion)
	var status *updatestatus.StatusREST
	main, status, err = updatestatus.NewREST(store, Scheme, codec, Codecs, extra.Clock, max(extra.EncodingRevisions, 0))
	if err != nil {
		return nil, err
	}
	insightRESTs, err := insightobjects.NewREST(insightStores, Scheme, codec, extra.Clock)
	if err != nil {
		return nil, err
	}
	storage := map[string]rest.Storage{
		resources.UpdateStatus.Resource:             main,
		resources.UpdateStatus.Resource + "/status": status,
	}
	readiness := []healthz.HealthChecker{
		check("update-status-sources-synced", extra.Sources.SyncCheck),
		check("update-status-computed", main.ReadinessCheck),
	}
	readinessREST, candidateREST, err := readinessPublisher.NewREST(Scheme, codec)
	if err != nil {
		return nil, err
	}
	storage[resources.UpdateReadiness.Resource] = readinessREST
	storage[resources.UpdateCandidate.Resource] = candidateREST
	for k, r := range insightRESTs {
		name := resources.InsightKind(k).Resource()
		storage[name] = r
		readiness = append(readiness, check("update-status-computed-"+name, r.ReadinessCheck))
	}
	hostedStatusREST, hostedInsightRESTs, err := hostedPublisher.NewREST(Scheme, codec, extra.Clock)
	if err != nil {
		return nil, err
	}
	storage[resources.HostedClusterUpdateStatus.Resource] = hostedStatusREST
	readiness = append(readiness,
		check("update-status-hosted-sources-synced", extra.Hosted.SyncCheck),
		check("update-status-computed-"+resources.HostedClusterUpdateStatus.Resource, hostedStatusREST.ReadinessCheck))
	for k, r := range hostedInsightRESTs {
		name := resources.InsightKind(k).Hosted().Resource
		storage[name] = r
		readiness = append(readiness, check("update-status-computed-"+name, r.ReadinessCheck))
	}
	group := genericapiserver.NewDefaultAPIGroupInfo(update.GroupName, Scheme, metav1.ParameterCodec, Codecs)
	group.VersionedResourcesStorageMap[v1alpha1.SchemeGroupVersion.Version] = storage
	if err := generic.InstallAPIGroup(&group); err != nil {
		return nil, fmt.Errorf("installing the %s API group: %w", update.GroupName, err)
	}

	if err := generic.AddPostStartHook("start-update-status-view", func(ctx genericapiserver.PostStartHookContext) error {
		s.Start(ctx)
		return nil
	}); err != nil {
		return nil, err
	}
	if err := generic.AddReadyzChecks(readiness...); err != nil {
		return nil, err
	}
	// healthz, livez and readyz.
	if err := generic.AddHealthChecks(check("update-status-view", v.CheckLive)); err != nil {
		return nil, err
	}
	return s, nil
}

// Start runs the sources and the view until ctx is done. The post-start hook
// calls it; tests that drive the handler directly may too.
func (s *UpdateStatusServer) Start(ctx context.Context) {
	go s.sources.Run(ctx)
	go s.view.Run(ctx)
	go s.readiness.Run(ctx)
	go s.hostedSources.Run(ctx)
	go s.hosted.Run(ctx)
}

// Run serves until ctx is done.
func (s *UpdateStatusServer) Run(ctx context.Context) error {
	return s.GenericAPIServer.PrepareRun().RunWithContext(ctx)
}

// check is a named health check that logs why it fails.
func check(name string, f func() error) healthz.HealthChecker {
	return healthz.NamedCheck(name, func(*http.Request) error {
		err := f()
		if err != nil {
			klog.V(1).InfoS("Health check failed", "check", name, "reason", err.Error())
		}
		return err
	})
}

var (
	registerOnce sync.Once
	// updateMetrics are the metrics of the update (pkg/monitoring).
	updateMetrics = monitoring.NewCollector()
)

// registerMetrics registers this server's metrics with the legacy registry,
// which /metrics serves together with the apiserver's own.
func registerMetrics() {
	registerOnce.Do(func() {
		if err := view.RegisterMetrics(legacyregistry.Register); err != nil {
			klog.ErrorS(err, "Cannot register the view metrics")
		}
		for _, m := range []metrics.Registerable{stalledWatchersClosed, watchesOpen, watchesRefused} {
			if err := legacyregistry.Register(m); err != nil {
				klog.ErrorS(err, "Cannot register a watch metric")
			}
		}
		if err := legacyregistry.Register(virtualstore.WatchesResumed); err != nil {
			klog.ErrorS(err, "Cannot register the resumed-watch metric")
		}
		if err := sources.RegisterMetrics(legacyregistry.Register); err != nil {
			klog.ErrorS(err, "Cannot register the source metrics")
		}
		if err := legacyregistry.CustomRegister(updateMetrics); err != nil {
			klog.ErrorS(err, "Cannot register the update metrics")
		}
	})
}
