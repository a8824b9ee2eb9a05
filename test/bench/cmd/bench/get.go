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

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	mcfgclient "github.com/openshift/client-go/machineconfiguration/clientset/versioned"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/apiserver"
	"github.com/update-status/apiserver/pkg/insights"
)

// loadResult is the outcome of a closed-loop load with some clients.
type loadResult struct {
	Clients    int
	Latency    summary
	Throughput float64 // requests per second
	Errors     int
}

// runLoad runs clients goroutines that each call op back to back for d and
// records every latency.
func runLoad(ctx context.Context, clients int, d time.Duration, op func(context.Context) error) loadResult {
	res, _ := runAlternating(ctx, clients, d, op, nil)
	return res
}

// runAlternating is runLoad where each client, after each successful op,
// also calls also (when not nil) and records its latency apart: op and also
// are measured in the same window, under the same load.
func runAlternating(ctx context.Context, clients int, d time.Duration, op func(context.Context) error, also func() error) (loadResult, []time.Duration) {
	var (
		mu     sync.Mutex
		all    []time.Duration
		alsos  []time.Duration
		errs   int
		wg     sync.WaitGroup
		begin  = time.Now()
		cctx   context.Context
		cancel context.CancelFunc
	)
	cctx, cancel = context.WithTimeout(ctx, d)
	defer cancel()
	for range clients {
		wg.Go(func() {
			var mine, myAlsos []time.Duration
			nerr := 0
			for cctx.Err() == nil {
				t := time.Now()
				if err := op(ctx); err != nil {
					nerr++
					continue
				}
				mine = append(mine, time.Since(t))
				if also != nil {
					t = time.Now()
					if err := also(); err != nil {
						nerr++
						continue
					}
					myAlsos = append(myAlsos, time.Since(t))
				}
			}
			mu.Lock()
			all = append(all, mine...)
			alsos = append(alsos, myAlsos...)
			errs += nerr
			mu.Unlock()
		})
	}
	wg.Wait()
	elapsed := time.Since(begin)
	return loadResult{Clients: clients, Latency: summarize(all), Throughput: float64(len(all)) / elapsed.Seconds(), Errors: errs}, alsos
}

// encodeLimit decodes the served object (JSON) and measures encoding it
// alone in format with the apimachinery serializer the server uses, for d.
// It returns the encoded size too.
func encodeLimit(served []byte, format string, d time.Duration) (summary, int, error) {
	obj := &v1alpha1.UpdateStatus{}
	if err := json.Unmarshal(served, obj); err != nil {
		return summary{}, 0, fmt.Errorf("decoding the served object: %w", err)
	}
	return encodeLoop(obj, format, d)
}

// encodeLoop measures encoding obj in format with the apimachinery
// serializer and the server's scheme, again and again for d (at least 5
// times), and returns the encoded size too.
func encodeLoop(obj runtime.Object, format string, d time.Duration) (summary, int, error) {
	ser := encoderFor(format)
	var buf bytes.Buffer
	var lat []time.Duration
	for end := time.Now().Add(d); time.Now().Before(end) || len(lat) < 5; {
		buf.Reset()
		t := time.Now()
		if err := ser.Encode(obj, &buf); err != nil {
			return summary{}, 0, err
		}
		lat = append(lat, time.Since(t))
	}
	return summarize(lat), buf.Len(), nil
}

// encoderFor returns the apimachinery serializer of format with the
// server's scheme.
func encoderFor(format string) runtime.Encoder {
	if format == formatProtobuf {
		return protobuf.NewSerializer(apiserver.Scheme, apiserver.Scheme)
	}
	return kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, apiserver.Scheme, apiserver.Scheme, kjson.SerializerOptions{})
}

// newList returns an empty list of one of the per-insight resources.
func newList(resource string) (runtime.Object, error) {
	switch resource {
	case "clusterversionprogressinsights":
		return &v1alpha1.ClusterVersionProgressInsightList{}, nil
	case "clusteroperatorprogressinsights":
		return &v1alpha1.ClusterOperatorProgressInsightList{}, nil
	case "machineconfigpoolprogressinsights":
		return &v1alpha1.MachineConfigPoolProgressInsightList{}, nil
	case resourceNodeInsights:
		return &v1alpha1.NodeProgressInsightList{}, nil
	case "healthinsights":
		return &v1alpha1.HealthInsightList{}, nil
	}
	return nil, fmt.Errorf("no list type for %q", resource)
}

// decodeList decodes a LIST of resource the server answered (JSON) and
// returns the list and its number of items.
func decodeList(resource string, served []byte) (runtime.Object, int, error) {
	list, err := newList(resource)
	if err != nil {
		return nil, 0, err
	}
	if err := json.Unmarshal(served, list); err != nil {
		return nil, 0, fmt.Errorf("decoding the LIST of %s: %w", resource, err)
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil, 0, err
	}
	return list, len(items), nil
}

// listEncoder returns a function that encodes list in format once, as
// encodeLoop does, and the size of the last encoding; safe for concurrent
// use.
func listEncoder(list runtime.Object, format string) (func() error, *atomic.Int64) {
	ser := encoderFor(format)
	size := &atomic.Int64{}
	bufs := sync.Pool{New: func() any { return new(bytes.Buffer) }}
	return func() error {
		buf := bufs.Get().(*bytes.Buffer)
		defer bufs.Put(buf)
		buf.Reset()
		if err := ser.Encode(list, buf); err != nil {
			return err
		}
		size.Store(int64(buf.Len()))
		return nil
	}, size
}

// listServed LISTs each of servedResources from the server, concurrently,
// within timeout, and returns how many objects each returned; a resource
// that did not answer 200 in time is left out.
func listServed(ctx context.Context, h *httpClient, serverURL string, timeout time.Duration) map[string]int {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var (
		mu  sync.Mutex
		wg  sync.WaitGroup
		out = map[string]int{}
	)
	for _, resource := range servedResources {
		wg.Go(func() {
			n, err := countItems(ctx, h, serverURL+apiPrefix+resource)
			if err != nil {
				klog.V(2).ErrorS(err, "LIST failed", "resource", resource)
				return
			}
			mu.Lock()
			out[resource] = n
			mu.Unlock()
		})
	}
	wg.Wait()
	return out
}

// clientSide is what `oc adm upgrade status` does: read every source from
// the kube-apiserver and run the engine in the client. The lists run
// concurrently and the clients are reused (no discovery, warm connections),
// and Nodes come as protobuf: every choice favours this path.
type clientSide struct {
	kube   kubernetes.Interface
	config configclient.Interface
	mcfg   mcfgclient.Interface
}

func newClientSide(cfg *rest.Config) (*clientSide, error) {
	cfg = unlimited(cfg)
	config, err := configclient.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	mcfg, err := mcfgclient.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	pb := rest.CopyConfig(cfg)
	pb.ContentType = "application/vnd.kubernetes.protobuf"
	pb.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	kube, err := kubernetes.NewForConfig(pb)
	if err != nil {
		return nil, err
	}
	return &clientSide{kube: kube, config: config, mcfg: mcfg}, nil
}

// run reads the sources and computes the status once, with a new engine (as
// a new oc process would).
func (c *clientSide) run(ctx context.Context) error {
	var (
		wg                     sync.WaitGroup
		cv                     *configv1.ClusterVersion
		cos                    *configv1.ClusterOperatorList
		mcps                   *mcfgv1.MachineConfigPoolList
		mcs                    *mcfgv1.MachineConfigList
		nodes                  *corev1.NodeList
		mco                    *appsv1.Deployment
		e1, e2, e3, e4, e5, e6 error
		opts                   = metav1.ListOptions{}
	)
	wg.Go(func() {
		cv, e1 = c.config.ConfigV1().ClusterVersions().Get(ctx, insights.ClusterVersionName, metav1.GetOptions{})
	})
	wg.Go(func() { cos, e2 = c.config.ConfigV1().ClusterOperators().List(ctx, opts) })
	wg.Go(func() { mcps, e3 = c.mcfg.MachineconfigurationV1().MachineConfigPools().List(ctx, opts) })
	wg.Go(func() { mcs, e4 = c.mcfg.MachineconfigurationV1().MachineConfigs().List(ctx, opts) })
	wg.Go(func() { nodes, e5 = c.kube.CoreV1().Nodes().List(ctx, opts) })
	wg.Go(func() {
		mco, e6 = c.kube.AppsV1().Deployments(insights.MCONamespace).Get(ctx, insights.MCODeploymentName, metav1.GetOptions{})
	})
	wg.Wait()
	for _, err := range []error{e1, e2, e3, e4, e5} {
		if err != nil {
			return err
		}
	}
	if e6 != nil && !apierrors.IsNotFound(e6) {
		return e6
	}
	var b insights.SourcesBuilder
	b.Add(cv)
	if e6 == nil {
		b.Add(mco)
	}
	for i := range cos.Items {
		b.Add(&cos.Items[i])
	}
	for i := range mcps.Items {
		b.Add(&mcps.Items[i])
	}
	for i := range mcs.Items {
		b.Add(&mcs.Items[i])
	}
	for i := range nodes.Items {
		b.Add(&nodes.Items[i])
	}
	src := b.Build()
	res := insights.NewEngine().Compute(src, time.Now())
	if res.Status.ControlPlane == nil {
		return fmt.Errorf("the engine computed no control plane from %d nodes", len(src.Nodes))
	}
	return nil
}
