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

// Command bench is `make bench`: it measures update-status-apiserver at
// cluster scale against the real local control plane (etcd, kube-apiserver
// and the server behind the aggregation layer, internal/localstack)
// filled by pkg/simulator, and writes docs/benchmarks.md.
//
// It needs KUBE_BIN_DIR (`KUBE_BIN_DIR=$(hack/build-kube.sh)`) and runs from
// inside the repository.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/klog/v2"

	"github.com/update-status/apiserver/internal/localstack"
	"github.com/update-status/apiserver/pkg/simulator"
)

// config holds the flags.
type config struct {
	sizes          []int
	getDuration    time.Duration
	getClients     []int
	encodeDuration time.Duration
	clientRuns     int
	watchers       []int
	watchDuration  time.Duration
	churnRate      int
	nodeImages     int
	out            string
	artifacts      string
	serverBin      string
	baselineBin    string
	baselineRounds int
	formats        []string
	routes         []string
	watchResources []string
	listResources  []string
	command        string
	// contributions is the contributions cell (-contributions), measured
	// with contributionWatchers watchers; the renewal storm lasts
	// stormDuration.
	contributions        contributionsSpec
	contributionWatchers int
	stormDuration        time.Duration
	// goBenchmarks are the Go benchmarks run after the sizes
	// (-go-benchmarks).
	goBenchmarks []string
	// nodeWatch is the node-watch cell (-node-watch, nodewatch.go).
	nodeWatch nodeWatchSpec
	// drain is the drain informer cell (-drain), run after the sizes on its
	// own control plane: drainWindow its steady window, drainSamples the
	// budgets set to 0 one after another.
	drain        drainSpec
	drainWindow  time.Duration
	drainSamples int
	// hosted is the management-cluster cell (-hosted, hosted.go), run
	// after the drain informer cell.
	hosted hostedSpec
}

// The Go benchmarks -go-benchmarks names.
const (
	goBenchNodeChange    = "node-change"
	goBenchList          = "list"
	goBenchHandBuilt     = "hand-built"
	goBenchContributions = "contributions"
)

// goBench reports whether the Go benchmark name runs.
func (c config) goBench(name string) bool { return slices.Contains(c.goBenchmarks, name) }

func main() {
	klog.InitFlags(nil)
	var c config
	sizes := flag.String("sizes", "1000,5000", "cluster sizes (nodes), comma-separated; empty for none")
	clients := flag.String("get-clients", "1,8,64", "concurrent GET clients, comma-separated")
	flag.DurationVar(&c.getDuration, "get-duration", 4*time.Second, "duration of each GET load")
	flag.DurationVar(&c.encodeDuration, "encode-duration", 2*time.Second, "duration of the in-process encoding loop")
	flag.IntVar(&c.clientRuns, "client-side-runs", 5, "runs of the client-side path (LIST everything + engine) per size")
	watchers := flag.String("watchers", "10,100,1000", "concurrent watchers of each watch measurement, comma-separated")
	flag.DurationVar(&c.watchDuration, "watch-duration", 30*time.Second, "duration of the watch measurement")
	flag.IntVar(&c.churnRate, "churn-rate", 50, "node changes per second during the watch measurement")
	flag.IntVar(&c.nodeImages, "node-images", 50, fmt.Sprintf("container images each simulated Node reports in status.images, as a kubelet does (its default maximum is 50): most of a real Node's size and of its watch events; 0 to %d", simulator.MaxNodeImages))
	flag.StringVar(&c.out, "out", "docs/benchmarks.md", "the report to write")
	flag.StringVar(&c.artifacts, "artifacts", "_output/bench", "where profiles and raw results go")
	flag.StringVar(&c.serverBin, "server-binary", "", "prebuilt update-status-apiserver (default: build ./cmd/apiserver)")
	flag.StringVar(&c.baselineBin, "baseline-binary", "", "an earlier update-status-apiserver to measure first at each size, in JSON only, for a before/after comparison in the same run")
	flag.IntVar(&c.baselineRounds, "baseline-rounds", 2, "with -baseline-binary: how many times each binary is measured at each size, alternating before and after, for section 0 (the first round of the tree's binary measures everything, later rounds what the baseline measures)")
	formats := flag.String("formats", "json,protobuf", "media types of the GET and watch cells, comma-separated (json, protobuf)")
	routes := flag.String("routes", "straight,aggregated", "routes of the GET and watch cells, comma-separated: straight to the server, or through the kube-apiserver's aggregation layer")
	watchResources := flag.String("watch-resources", resourceUpdateStatuses+","+resourceNodeInsights, "resources the watch cells watch, comma-separated: updatestatuses (the object cluster), nodeprogressinsights (the collection, from now on); empty for none")
	listResources := flag.String("list-resources", resourceNodeInsights, "per-insight resources whose whole collection the LIST cells read (with the first -get-clients count), comma-separated; empty for none")
	flag.StringVar(&c.command, "command", "make bench", "the command quoted in the report")
	contributions := flag.String("contributions", "16x1024", "the contributions cell at each size: <informers>x<insights> UpdateInformers, each with that many Health insights on the worker pool; empty to skip")
	flag.IntVar(&c.contributionWatchers, "contribution-watchers", 100, "watchers of nodeprogressinsights (aggregated, JSON) in the contributions cell, without and with the contributions")
	goBenchmarks := flag.String("go-benchmarks", strings.Join([]string{goBenchNodeChange, goBenchList, goBenchHandBuilt, goBenchContributions}, ","),
		"Go benchmarks to run after the sizes, comma-separated: node-change (BenchmarkNodeChangeToWatchCache), list (BenchmarkListNodeInsights, with -list-resources), hand-built (section 8), contributions (BenchmarkContributions, with -contributions); empty for none")
	flag.DurationVar(&c.stormDuration, "renewal-storm", 30*time.Second, "duration of the contributions cell's renewal storm (every informer renewing every second)")
	nodeWatch := c.nodeWatch.register(flag.CommandLine)
	hostedCell := c.hosted.register(flag.CommandLine)
	drainCell := flag.String("drain", "5000x150000", "the drain informer cell: <nodes>x<pods> in the cluster, the informer (cmd/update-status-drain-informer) run as its own process; empty to skip")
	drainDraining := flag.String("drain-draining", "50x30", "with -drain: <draining nodes>x<pods on each>")
	drainSmall := flag.Int("drain-small-pods", 1500, "with -drain: the pods of the first measurement (at least the draining nodes' pods), before the cluster is filled to -drain's pods")
	flag.DurationVar(&c.drainWindow, "drain-window", time.Minute, "with -drain: the steady window over which the informer's CPU and requests are counted")
	flag.IntVar(&c.drainSamples, "drain-samples", 10, "with -drain: budgets set to 0 one after another, each timed to its insight in the API")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the benchmark process itself to this file")
	flag.Parse()
	// The benchmark process is the load generator and holds the results:
	// collect its garbage less often, so that its GC takes less of the
	// machine's CPU from what is measured.
	debug.SetGCPercent(400)
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			klog.ErrorS(err, "Cannot profile")
			os.Exit(2)
		}
		defer pprof.StopCPUProfile()
	}
	var err error
	if strings.TrimSpace(*sizes) != "" {
		c.sizes, err = ints(*sizes)
	}
	if err == nil {
		c.getClients, err = ints(*clients)
	}
	if err == nil {
		c.watchers, err = ints(*watchers)
	}
	if err == nil {
		c.formats, err = words(*formats, formatJSON, formatProtobuf)
	}
	if err == nil {
		c.routes, err = words(*routes, routeDirect, routeAggregated)
	}
	if err == nil && *watchResources != "" {
		c.watchResources, err = words(*watchResources, resourceUpdateStatuses, resourceNodeInsights)
	}
	if err == nil {
		c.contributions, err = parseContributions(*contributions)
	}
	if err == nil && *goBenchmarks != "" {
		c.goBenchmarks, err = words(*goBenchmarks, goBenchNodeChange, goBenchList, goBenchHandBuilt, goBenchContributions)
	}
	if err == nil && c.contributions.Informers > 0 && (c.contributionWatchers < 1 || c.stormDuration < time.Second) {
		err = fmt.Errorf("-contribution-watchers=%d -renewal-storm=%v: at least 1 watcher and 1s", c.contributionWatchers, c.stormDuration)
	}
	if err == nil && *listResources != "" {
		c.listResources, err = words(*listResources, servedResources[1:]...)
	}
	if err == nil {
		err = nodeWatch()
	}
	if err == nil {
		err = hostedCell()
	}
	if err == nil {
		c.drain, err = parseDrain(*drainCell, *drainDraining, *drainSmall)
	}
	if err == nil && c.drain.Nodes > 0 && (c.drainWindow < time.Second || c.drainSamples < 1) {
		err = fmt.Errorf("-drain-window=%v -drain-samples=%d: at least 1s and 1 sample", c.drainWindow, c.drainSamples)
	}
	if err == nil && (c.nodeImages < 0 || c.nodeImages > simulator.MaxNodeImages) {
		err = fmt.Errorf("-node-images=%d: 0 to %d", c.nodeImages, simulator.MaxNodeImages)
	}
	if err == nil && c.baselineRounds < 1 {
		err = fmt.Errorf("-baseline-rounds=%d: at least 1", c.baselineRounds)
	}
	if err != nil {
		klog.ErrorS(err, "Bad flag")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, c); err != nil {
		klog.ErrorS(err, "Benchmark failed")
		klog.Flush()
		os.Exit(1)
	}
	klog.Flush()
}

func ints(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not a positive integer", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// words splits a comma-separated list of the allowed words.
func words(s string, allowed ...string) ([]string, error) {
	var out []string
	for f := range strings.SplitSeq(s, ",") {
		f = strings.TrimSpace(f)
		if !slices.Contains(allowed, f) {
			return nil, fmt.Errorf("%q is not one of %v", f, allowed)
		}
		out = append(out, f)
	}
	return out, nil
}

func run(ctx context.Context, c config) error {
	begin := time.Now()
	root, err := localstack.RepoRoot()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.artifacts, 0o755); err != nil {
		return err
	}
	if c.serverBin == "" {
		c.serverBin = filepath.Join(c.artifacts, "update-status-apiserver")
		klog.InfoS("Building the server", "binary", c.serverBin)
		cmd := exec.CommandContext(ctx, "go", "build", "-o", c.serverBin, "./cmd/apiserver/update-status-apiserver")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build: %w\n%s", err, out)
		}
	}
	if c.serverBin, err = filepath.Abs(c.serverBin); err != nil {
		return err
	}
	// A round measures each binary once; with a baseline, the binaries
	// alternate (before, after, before, after, ...) so that a drift of the
	// machine during the run weighs on both alike.
	type binary struct {
		label, path string
		round       int
	}
	var order []binary
	if c.baselineBin == "" {
		order = []binary{{"after", c.serverBin, 1}}
	} else {
		if c.baselineBin, err = filepath.Abs(c.baselineBin); err != nil {
			return err
		}
		for round := 1; round <= c.baselineRounds; round++ {
			order = append(order, binary{"before", c.baselineBin, round}, binary{"after", c.serverBin, round})
		}
	}
	rep := &report{machine: describeMachine(), config: c, started: begin}
sizes:
	for _, n := range c.sizes {
		for _, b := range order {
			// localstack.StartServer uses this binary instead of building
			// its own.
			if err := os.Setenv(localstack.EnvServerBinary, b.path); err != nil {
				return err
			}
			bc := c
			if b.label == "before" || b.round > 1 {
				// The baseline may predate the per-insight resources; a
				// later round of the tree's binary measures what the
				// baseline measures, for section 0.
				bc.formats = []string{formatJSON}
				bc.watchResources = []string{resourceUpdateStatuses}
				bc.listResources = nil
				bc.contributions = contributionsSpec{}
				bc.nodeWatch = c.nodeWatch.baseline()
			}
			label := b.label
			if b.round > 1 {
				label = fmt.Sprintf("%s-%d", b.label, b.round)
			}
			r, err := benchSize(ctx, bc, n, label)
			if r != nil {
				switch {
				case b.label == "before":
					rep.baseline = append(rep.baseline, r)
				case b.round > 1:
					rep.repeats = append(rep.repeats, r)
				default:
					rep.sizes = append(rep.sizes, r)
				}
			}
			if err != nil {
				rep.failures = append(rep.failures, fmt.Sprintf("%d nodes (%s): %v", n, label, err))
				klog.ErrorS(err, "Size failed", "nodes", n, "binary", label)
				if errors.Is(err, context.Canceled) {
					break sizes
				}
			}
			rep.wall = time.Since(begin)
			if err := rep.write(c.out); err != nil {
				return err
			}
		}
	}
	if ctx.Err() == nil && c.drain.Nodes > 0 {
		klog.InfoS("Running the drain informer cell", "cell", c.drain)
		if rep.drain, err = benchDrain(ctx, c); err != nil {
			rep.failures = append(rep.failures, fmt.Sprintf("drain informer cell: %v", err))
		}
		rep.wall = time.Since(begin)
		if err := rep.write(c.out); err != nil {
			return err
		}
	}
	if ctx.Err() == nil && len(c.hosted.Clusters) > 0 {
		klog.InfoS("Running the management-cluster cell", "hostedClusters", c.hosted.Clusters)
		if err := os.Setenv(localstack.EnvServerBinary, c.serverBin); err != nil {
			return err
		}
		if rep.hosted, err = benchHosted(ctx, c); err != nil {
			rep.failures = append(rep.failures, fmt.Sprintf("management-cluster cell: %v", err))
		}
		rep.wall = time.Since(begin)
		if err := rep.write(c.out); err != nil {
			return err
		}
	}
	if ctx.Err() == nil {
		if c.goBench(goBenchNodeChange) {
			klog.InfoS("Running the Go benchmark of one node change", "benchmark", nodeChangeBench)
			if rep.nodeChange, err = benchNodeChange(ctx, root); err != nil {
				rep.failures = append(rep.failures, err.Error())
			}
		}
		if len(c.listResources) > 0 && c.goBench(goBenchList) {
			klog.InfoS("Running the Go benchmark of a LIST in-process", "benchmark", listBench)
			if rep.listInProcess, err = benchList(ctx, root); err != nil {
				rep.failures = append(rep.failures, err.Error())
			}
		}
		if c.contributions.Informers > 0 && c.goBench(goBenchContributions) {
			klog.InfoS("Running the Go benchmarks of the contributions' merge", "benchmark", contributionsBench)
			if rep.contributionsGo, err = benchContributionsGo(ctx, root); err != nil {
				rep.failures = append(rep.failures, err.Error())
			}
		}
		if c.goBench(goBenchHandBuilt) {
			klog.InfoS("Running the Go benchmarks of the hand-built parts")
			if rep.handBuilt, err = benchHandBuilt(ctx, root); err != nil {
				rep.failures = append(rep.failures, err.Error())
			}
		}
		rep.wall = time.Since(begin)
		if err := rep.write(c.out); err != nil {
			return err
		}
	}
	klog.InfoS("Wrote the report", "path", c.out, "elapsed", time.Since(begin).Round(time.Second))
	if len(rep.failures) > 0 {
		return fmt.Errorf("%d size(s) failed: %s", len(rep.failures), strings.Join(rep.failures, "; "))
	}
	return nil
}
