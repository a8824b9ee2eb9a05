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

package validation_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/apis/update/validation"
)

// Paths into the example (pkg/apis/update/testdata/example.yaml).
const (
	cpPath     = "status.controlPlane"
	cpiPath    = cpPath + ".informers[0].insights"
	cvPath     = cpiPath + "[0].insight.clusterVersion"
	etcdPath   = cpiPath + "[1].insight.clusterOperator"
	poolPath   = "status.workerPools[0]"
	wpiPath    = poolPath + ".informers[0].insights"
	mcpPath    = wpiPath + "[0].insight.machineConfigPool"
	nodePath   = wpiPath + "[1].insight.node"
	healthPath = wpiPath + "[4].insight.health"
	// addedPath is the first insight a test appends under the control plane.
	addedPath = cpiPath + "[4].insight"
)

// Error types, short.
const (
	required     = field.ErrorTypeRequired
	invalid      = field.ErrorTypeInvalid
	tooLong      = field.ErrorTypeTooLong
	tooMany      = field.ErrorTypeTooMany
	notSupported = field.ErrorTypeNotSupported
	duplicate    = field.ErrorTypeDuplicate
	forbidden    = field.ErrorTypeForbidden
)

// want is one expected error.
type want struct {
	typ  field.ErrorType
	path string
}

func TestExampleIsValid(t *testing.T) {
	obj := example(t)

	errs := validation.ValidateUpdateStatus(obj)

	if len(errs) != 0 {
		t.Fatalf("example has %d errors:\n%v", len(errs), errs.ToAggregate())
	}
	// The example must really have been decoded, not silently emptied.
	if got := len(*wpInsights(obj)); got != 5 {
		t.Errorf("worker pool insights = %d, want 5", got)
	}
	if got := len(*cpInsights(obj)); got != 4 {
		t.Errorf("control-plane insights = %d, want 4", got)
	}
	if got := health(obj).Impact.Type; got != v1alpha1.UpdateSpeedImpactType {
		t.Errorf("health impact type = %q, want %q", got, v1alpha1.UpdateSpeedImpactType)
	}
}

func TestNilObject(t *testing.T) {
	errs := validation.ValidateUpdateStatus(nil)
	if len(errs) != 1 || errs[0].Type != required {
		t.Fatalf("ValidateUpdateStatus(nil) = %v, want one Required error", errs)
	}
}

func TestBigObjectIsValid(t *testing.T) {
	obj := bigStatus(10, 1000)
	if errs := validation.ValidateUpdateStatus(obj); len(errs) != 0 {
		t.Fatalf("generated object has %d errors, first: %v", len(errs), errs[0])
	}
}

// TestValidVariants mutates the example into other objects the server may
// legitimately produce; each must pass.
func TestValidVariants(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(o *v1alpha1.UpdateStatus)
	}{
		{"empty status", func(o *v1alpha1.UpdateStatus) { o.Status = v1alpha1.UpdateStatusStatus{} }},
		{"type meta set", func(o *v1alpha1.UpdateStatus) {
			o.APIVersion, o.Kind = "update.openshift.io/v1alpha1", "UpdateStatus"
		}},
		{"fresh install", func(o *v1alpha1.UpdateStatus) {
			c := cv(o)
			c.Versions.Previous = v1alpha1.Version{Version: "<none>", Metadata: []v1alpha1.VersionMetadata{{Key: v1alpha1.InstallationMetadata}}}
			c.Assessment, c.Completion = v1alpha1.ControlPlaneAssessmentCompleted, 100
			c.CompletedAt = timePtr(c.StartedAt)
		}},
		{"partial previous with architecture", func(o *v1alpha1.UpdateStatus) {
			cv(o).Versions.Previous.Metadata = []v1alpha1.VersionMetadata{{Key: v1alpha1.PartialMetadata}, {Key: v1alpha1.ArchitectureMetadata, Value: "amd64"}}
			cv(o).Versions.Target.Metadata = []v1alpha1.VersionMetadata{{Key: v1alpha1.ArchitectureMetadata, Value: "multi"}}
		}},
		{"pre-release versions", func(o *v1alpha1.UpdateStatus) {
			cv(o).Versions.Target.Version = "4.18.0-ec.2"
			node(o).Version = "4.18.0-0.nightly-2025-03-01-000000"
		}},
		{"node without version", func(o *v1alpha1.UpdateStatus) { node(o).Version = "" }},
		{"prefixed condition type", func(o *v1alpha1.UpdateStatus) {
			o.Status.Conditions = append(o.Status.Conditions, condition("example.com/Ready_v1.2"))
		}},
		{"control plane without references", func(o *v1alpha1.UpdateStatus) {
			o.Status.ControlPlane.Resource, o.Status.ControlPlane.PoolResource = nil, nil
		}},
		{"hosted control plane and node pool", func(o *v1alpha1.UpdateStatus) {
			r := ref("hypershift.openshift.io", "hostedclusters", "prod")
			o.Status.ControlPlane.Resource = &r
			o.Status.WorkerPools[0].Resource.Group = "hypershift.openshift.io"
			o.Status.WorkerPools[0].Resource.Resource = "nodepools"
		}},
		{"hosted cluster's insights", func(o *v1alpha1.UpdateStatus) {
			hc := ref("hypershift.openshift.io", "hostedclusters", "prod")
			hc.Namespace = "clusters"
			o.Status.ControlPlane.Resource, o.Status.ControlPlane.PoolResource = &hc, nil
			cv(o).Resource = hc
			etcd(o).Resource = v1alpha1.ResourceRef{Group: "hypershift.openshift.io", Resource: "controlplanecomponents",
				Namespace: "clusters-prod", Name: etcd(o).Name}
			np := v1alpha1.ResourceRef{Group: "hypershift.openshift.io", Resource: "nodepools", Namespace: "clusters", Name: o.Status.WorkerPools[0].Name}
			o.Status.WorkerPools[0].Resource.ResourceRef = np
			mcp(o).Resource.ResourceRef = np
			node(o).PoolResource.ResourceRef = np
			// The node is named by its nodeRef, its Machine apart from it.
			node(o).Name = "ip-10-0-20-162.ec2.internal"
			node(o).Resource = v1alpha1.ResourceRef{Group: "cluster.x-k8s.io", Resource: "machines", Namespace: "clusters-prod",
				Name: "worker-a-7c9f6-x2xkq"}
		}},
		{"reference is an absolute path", func(o *v1alpha1.UpdateStatus) { health(o).Remediation.Reference = "/docs/drain" }},
		{"estimated finish set", func(o *v1alpha1.UpdateStatus) { health(o).Remediation.EstimatedFinish = timePtr(health(o).StartedAt) }},
		{"worker-pool health placed under the control plane", func(o *v1alpha1.UpdateStatus) { addCPInsight(o, "health-unplaced", 4) }},
		{"control-plane pool and node under the control plane", func(o *v1alpha1.UpdateStatus) {
			m := addCPInsight(o, "mcp-master", 0).MachineConfigPoolStatusInsight
			m.Name, m.Resource, m.Scope = "master", mcpRef("master"), v1alpha1.ControlPlaneScope
			n := addCPInsight(o, "node-master-0", 1).NodeStatusInsight
			n.PoolResource, n.Scope = mcpRef("master"), v1alpha1.ControlPlaneScope
			h := addCPInsight(o, "health-cp", 4).HealthInsight
			h.Scope.Type = v1alpha1.ControlPlaneScope
		}},
		{"lists at their limits", func(o *v1alpha1.UpdateStatus) {
			for i := len(o.Status.Conditions); i < 10; i++ {
				o.Status.Conditions = append(o.Status.Conditions, condition(fmt.Sprintf("C%d", i)))
			}
			for i := len(*cpInsights(o)); i < 128; i++ {
				addCPInsight(o, fmt.Sprintf("health-%d", i), 4)
			}
			pad := (*wpInsights(o))[4]
			for i := len(*wpInsights(o)); i < 1024; i++ {
				pad.UID = fmt.Sprintf("health-%d", i)
				*wpInsights(o) = append(*wpInsights(o), pad)
			}
			health(o).Scope.Resources = slices.Repeat(health(o).Scope.Resources[:1], 16)
		}},
		{"strings at their maximum length", func(o *v1alpha1.UpdateStatus) {
			node(o).Message = strings.Repeat("é", 100) // counted in characters, not bytes
			health(o).Impact.Summary = strings.Repeat("s", 256)
			o.Status.Conditions[0].Reason = "A" + strings.Repeat("b", 1023)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := example(t)
			tt.mutate(obj)

			errs := validation.ValidateUpdateStatus(obj)

			if len(errs) != 0 {
				t.Errorf("got %d errors:\n%v", len(errs), errs.ToAggregate())
			}
		})
	}
}

// TestInvalid holds at least one mutation of the example per constraint;
// each row lists every error it must produce, no more and no fewer.
func TestInvalid(t *testing.T) {
	long := func(n int) string { return strings.Repeat("a", n) }
	tests := []struct {
		name   string
		mutate func(o *v1alpha1.UpdateStatus)
		want   []want
	}{
		// Object.
		{"name missing", func(o *v1alpha1.UpdateStatus) { o.Name = "" }, []want{{required, "metadata.name"}}},
		{"name not cluster", func(o *v1alpha1.UpdateStatus) { o.Name = "other" }, []want{{invalid, "metadata.name"}}},
		{"namespaced", func(o *v1alpha1.UpdateStatus) { o.Namespace = "default" }, []want{{forbidden, "metadata.namespace"}}},
		{"wrong kind", func(o *v1alpha1.UpdateStatus) { o.Kind = "ClusterVersion" }, []want{{invalid, "kind"}}},
		{"wrong apiVersion", func(o *v1alpha1.UpdateStatus) { o.APIVersion = "update.openshift.io/v1" }, []want{{invalid, "apiVersion"}}},

		// metav1.Condition, on the outer conditions and deep inside.
		{"too many conditions", func(o *v1alpha1.UpdateStatus) {
			for i := range 10 {
				o.Status.Conditions = append(o.Status.Conditions, condition(fmt.Sprintf("C%d", i)))
			}
		}, []want{{tooMany, "status.conditions"}}},
		{"duplicate condition type", func(o *v1alpha1.UpdateStatus) {
			o.Status.Conditions = append(o.Status.Conditions, condition("Available"))
		}, []want{{duplicate, "status.conditions[1].type"}}},
		{"duplicate node condition type", func(o *v1alpha1.UpdateStatus) { node(o).Conditions[2].Type = "Updating" },
			[]want{{duplicate, nodePath + ".conditions[2].type"}}},
		{"condition type missing", func(o *v1alpha1.UpdateStatus) { o.Status.Conditions[0].Type = "" },
			[]want{{required, "status.conditions[0].type"}}},
		{"condition type too long", func(o *v1alpha1.UpdateStatus) { o.Status.Conditions[0].Type = long(317) },
			[]want{{tooLong, "status.conditions[0].type"}}},
		{"condition type pattern", func(o *v1alpha1.UpdateStatus) { o.Status.Conditions[0].Type = "Is Available" },
			[]want{{invalid, "status.conditions[0].type"}}},
		{"condition type prefix pattern", func(o *v1alpha1.UpdateStatus) { o.Status.Conditions[0].Type = "Example.com/Ready" },
			[]want{{invalid, "status.conditions[0].type"}}},
		{"condition status missing", func(o *v1alpha1.UpdateStatus) { o.Status.ControlPlane.Conditions[0].Status = "" },
			[]want{{required, cpPath + ".conditions[0].status"}}},
		{"condition status enum", func(o *v1alpha1.UpdateStatus) { etcd(o).Conditions[1].Status = "true" },
			[]want{{notSupported, etcdPath + ".conditions[1].status"}}},
		{"condition observedGeneration negative", func(o *v1alpha1.UpdateStatus) { o.Status.Conditions[0].ObservedGeneration = -1 },
			[]want{{invalid, "status.conditions[0].observedGeneration"}}},
		{"condition lastTransitionTime missing", func(o *v1alpha1.UpdateStatus) { mcp(o).Conditions[0].LastTransitionTime = metav1.Time{} },
			[]want{{required, mcpPath + ".conditions[0].lastTransitionTime"}}},
		{"condition reason missing", func(o *v1alpha1.UpdateStatus) { cv(o).Conditions[0].Reason = "" },
			[]want{{required, cvPath + ".conditions[0].reason"}}},
		{"condition reason too long", func(o *v1alpha1.UpdateStatus) { cv(o).Conditions[0].Reason = long(1025) },
			[]want{{tooLong, cvPath + ".conditions[0].reason"}}},
		{"condition reason pattern", func(o *v1alpha1.UpdateStatus) { o.Status.WorkerPools[0].Conditions[0].Reason = "Progressing," },
			[]want{{invalid, poolPath + ".conditions[0].reason"}}},
		{"condition message too long", func(o *v1alpha1.UpdateStatus) { o.Status.Conditions[0].Message = long(32769) },
			[]want{{tooLong, "status.conditions[0].message"}}},

		// controlPlane.
		{"R-CP-RES", func(o *v1alpha1.UpdateStatus) { o.Status.ControlPlane.Resource.Resource = "clusteroperators" },
			[]want{{invalid, cpPath + ".resource"}}},
		{"R-CP-POOL", func(o *v1alpha1.UpdateStatus) {
			o.Status.ControlPlane.PoolResource.Group, o.Status.ControlPlane.PoolResource.Resource = "hypershift.openshift.io", "nodepools"
		}, []want{{invalid, cpPath + ".poolResource"}}},
		{"reference group too long", func(o *v1alpha1.UpdateStatus) { o.Status.ControlPlane.Resource.Group = long(254) },
			[]want{{tooLong, cpPath + ".resource.group"}, {invalid, cpPath + ".resource"}}},
		{"reference group subdomain", func(o *v1alpha1.UpdateStatus) { o.Status.ControlPlane.Resource.Group = "Config.openshift.io" },
			[]want{{invalid, cpPath + ".resource.group"}, {invalid, cpPath + ".resource"}}},
		{"reference resource missing", func(o *v1alpha1.UpdateStatus) { o.Status.ControlPlane.PoolResource.Resource = "" },
			[]want{{required, cpPath + ".poolResource.resource"}, {invalid, cpPath + ".poolResource"}}},
		{"reference name missing", func(o *v1alpha1.UpdateStatus) { o.Status.ControlPlane.Resource.Name = "" },
			[]want{{required, cpPath + ".resource.name"}}},
		{"reference name subdomain", func(o *v1alpha1.UpdateStatus) { o.Status.ControlPlane.Resource.Name = "version-" },
			[]want{{invalid, cpPath + ".resource.name"}}},
		{"reference name too long", func(o *v1alpha1.UpdateStatus) { o.Status.ControlPlane.Resource.Name = long(254) },
			[]want{{tooLong, cpPath + ".resource.name"}}},
		{"reference namespace pattern", func(o *v1alpha1.UpdateStatus) { health(o).Scope.Resources[1].Namespace = "shop.prod" },
			[]want{{invalid, healthPath + ".scope.resources[1].namespace"}}},
		{"reference namespace too long", func(o *v1alpha1.UpdateStatus) { health(o).Scope.Resources[1].Namespace = long(254) },
			[]want{{tooLong, healthPath + ".scope.resources[1].namespace"}}},
		{"too many control-plane informers", func(o *v1alpha1.UpdateStatus) {
			for i := range 16 {
				o.Status.ControlPlane.Informers = append(o.Status.ControlPlane.Informers, v1alpha1.ControlPlaneInformer{Name: fmt.Sprintf("i%d", i)})
			}
		}, []want{{tooMany, cpPath + ".informers"}}},
		{"duplicate informer name", func(o *v1alpha1.UpdateStatus) {
			o.Status.ControlPlane.Informers = append(o.Status.ControlPlane.Informers, v1alpha1.ControlPlaneInformer{Name: "cpi"})
		}, []want{{duplicate, cpPath + ".informers[1].name"}}},
		{"informer name missing", func(o *v1alpha1.UpdateStatus) { o.Status.ControlPlane.Informers[0].Name = "" },
			[]want{{required, cpPath + ".informers[0].name"}}},
		{"informer name subdomain", func(o *v1alpha1.UpdateStatus) { o.Status.WorkerPools[0].Informers[0].Name = "Nodes" },
			[]want{{invalid, poolPath + ".informers[0].name"}}},
		{"informer name too long", func(o *v1alpha1.UpdateStatus) { o.Status.ControlPlane.Informers[0].Name = long(254) },
			[]want{{tooLong, cpPath + ".informers[0].name"}}},
		{"too many control-plane insights", func(o *v1alpha1.UpdateStatus) {
			for i := range 125 {
				addCPInsight(o, fmt.Sprintf("health-%d", i), 4)
			}
		}, []want{{tooMany, cpiPath}}},
		{"duplicate control-plane uid", func(o *v1alpha1.UpdateStatus) { (*cpInsights(o))[2].UID = "co-etcd" },
			[]want{{duplicate, cpiPath + "[2].uid"}}},
		{"uid missing", func(o *v1alpha1.UpdateStatus) { (*cpInsights(o))[1].UID = "" }, []want{{required, cpiPath + "[1].uid"}}},
		{"uid too long", func(o *v1alpha1.UpdateStatus) { (*cpInsights(o))[1].UID = long(64) }, []want{{tooLong, cpiPath + "[1].uid"}}},
		{"uid pattern", func(o *v1alpha1.UpdateStatus) { (*wpInsights(o))[1].UID = "node-ip-10.0.20.162" },
			[]want{{invalid, wpiPath + "[1].uid"}}},
		{"acquiredAt missing", func(o *v1alpha1.UpdateStatus) { (*cpInsights(o))[1].AcquiredAt = metav1.Time{} },
			[]want{{required, cpiPath + "[1].acquiredAt"}}},

		// The insight unions (R-UNION).
		{"union type missing", func(o *v1alpha1.UpdateStatus) { cpUnion(o, 1).Type = "" },
			[]want{{required, cpiPath + "[1].insight.type"}, {forbidden, cpiPath + "[1].insight.clusterOperator"}}},
		{"union type enum", func(o *v1alpha1.UpdateStatus) { cpUnion(o, 1).Type = "Pod" },
			[]want{{notSupported, cpiPath + "[1].insight.type"}, {forbidden, cpiPath + "[1].insight.clusterOperator"}}},
		{"union type names another member", func(o *v1alpha1.UpdateStatus) { cpUnion(o, 1).Type = v1alpha1.ClusterVersionStatusInsightType },
			[]want{{required, cpiPath + "[1].insight.clusterVersion"}, {forbidden, cpiPath + "[1].insight.clusterOperator"}}},
		{"union member missing", func(o *v1alpha1.UpdateStatus) { cpUnion(o, 0).ClusterVersionStatusInsight = nil },
			[]want{{required, cpiPath + "[0].insight.clusterVersion"}}},
		{"union second member", func(o *v1alpha1.UpdateStatus) { cpUnion(o, 1).NodeStatusInsight = node(o).DeepCopy() },
			[]want{
				{forbidden, cpiPath + "[1].insight.node"},
				{invalid, cpiPath + "[1].insight.node.scopeType"}, {invalid, cpiPath + "[1].insight.node.poolResource.name"},
			}},
		{"worker-pool union type enum", func(o *v1alpha1.UpdateStatus) { wpUnion(o, 0).Type = v1alpha1.ClusterOperatorStatusInsightType },
			[]want{{notSupported, wpiPath + "[0].insight.type"}, {forbidden, mcpPath}}},
		{"worker-pool union member missing", func(o *v1alpha1.UpdateStatus) { wpUnion(o, 4).HealthInsight = nil },
			[]want{{required, healthPath}}},

		// clusterVersion.
		{"R-CV-RES", func(o *v1alpha1.UpdateStatus) { cv(o).Resource.Group = "hypershift.openshift.io" },
			[]want{{invalid, cvPath + ".resource"}}},
		{"assessment missing", func(o *v1alpha1.UpdateStatus) { cv(o).Assessment = "" }, []want{{required, cvPath + ".assessment"}}},
		{"assessment enum", func(o *v1alpha1.UpdateStatus) { cv(o).Assessment = "Done" }, []want{{notSupported, cvPath + ".assessment"}}},
		{"version missing", func(o *v1alpha1.UpdateStatus) { cv(o).Versions.Previous.Version = "" },
			[]want{{required, cvPath + ".versions.previous.version"}}},
		{"version too long", func(o *v1alpha1.UpdateStatus) { cv(o).Versions.Target.Version = "4.17.5-" + long(58) },
			[]want{{tooLong, cvPath + ".versions.target.version"}}},
		{"P-VERSION not semver", func(o *v1alpha1.UpdateStatus) { cv(o).Versions.Previous.Version = "4.16" },
			[]want{{invalid, cvPath + ".versions.previous.version"}}},
		{"P-VERSION build metadata", func(o *v1alpha1.UpdateStatus) { cv(o).Versions.Target.Version = "4.17.5+abc" },
			[]want{{invalid, cvPath + ".versions.target.version"}}},
		{"P-VERSION leading zero", func(o *v1alpha1.UpdateStatus) { cv(o).Versions.Target.Version = "4.07.5" },
			[]want{{invalid, cvPath + ".versions.target.version"}}},
		{"P-VERSION none with suffix", func(o *v1alpha1.UpdateStatus) { cv(o).Versions.Previous.Version = "<none>x" },
			[]want{{invalid, cvPath + ".versions.previous.version"}}},
		{"R-PREV none without Installation", func(o *v1alpha1.UpdateStatus) { cv(o).Versions.Previous.Version = "<none>" },
			[]want{{invalid, cvPath + ".versions.previous"}}},
		{"R-PREV Installation without none", func(o *v1alpha1.UpdateStatus) {
			cv(o).Versions.Previous.Metadata = []v1alpha1.VersionMetadata{{Key: v1alpha1.InstallationMetadata}}
		}, []want{{invalid, cvPath + ".versions.previous"}}},
		{"R-TARGET none", func(o *v1alpha1.UpdateStatus) { cv(o).Versions.Target.Version = "<none>" },
			[]want{{invalid, cvPath + ".versions.target"}}},
		{"R-TARGET Installation", func(o *v1alpha1.UpdateStatus) {
			cv(o).Versions.Target.Metadata = []v1alpha1.VersionMetadata{{Key: v1alpha1.InstallationMetadata}}
		}, []want{{invalid, cvPath + ".versions.target"}}},
		{"too many version metadata", func(o *v1alpha1.UpdateStatus) {
			for _, k := range []v1alpha1.VersionMetadataKey{"Partial", "Architecture", "Partial", "Architecture", "Partial", "Architecture"} {
				cv(o).Versions.Previous.Metadata = append(cv(o).Versions.Previous.Metadata, v1alpha1.VersionMetadata{Key: k})
			}
		}, []want{
			{tooMany, cvPath + ".versions.previous.metadata"},
			{duplicate, cvPath + ".versions.previous.metadata[2].key"}, {duplicate, cvPath + ".versions.previous.metadata[3].key"},
			{duplicate, cvPath + ".versions.previous.metadata[4].key"}, {duplicate, cvPath + ".versions.previous.metadata[5].key"},
		}},
		{"duplicate version metadata key", func(o *v1alpha1.UpdateStatus) {
			cv(o).Versions.Previous.Metadata = []v1alpha1.VersionMetadata{{Key: "Partial"}, {Key: "Partial"}}
		}, []want{{duplicate, cvPath + ".versions.previous.metadata[1].key"}}},
		{"version metadata key missing", func(o *v1alpha1.UpdateStatus) {
			cv(o).Versions.Target.Metadata = []v1alpha1.VersionMetadata{{Value: "x"}}
		}, []want{{required, cvPath + ".versions.target.metadata[0].key"}}},
		{"version metadata key enum", func(o *v1alpha1.UpdateStatus) {
			cv(o).Versions.Target.Metadata = []v1alpha1.VersionMetadata{{Key: "Arch"}}
		}, []want{{notSupported, cvPath + ".versions.target.metadata[0].key"}}},
		{"version metadata value too long", func(o *v1alpha1.UpdateStatus) {
			cv(o).Versions.Target.Metadata = []v1alpha1.VersionMetadata{{Key: "Architecture", Value: long(33)}}
		}, []want{{tooLong, cvPath + ".versions.target.metadata[0].value"}}},
		{"completion below 0", func(o *v1alpha1.UpdateStatus) { cv(o).Completion = -1 }, []want{{invalid, cvPath + ".completion"}}},
		{"completion above 100", func(o *v1alpha1.UpdateStatus) { cv(o).Completion = 101 }, []want{{invalid, cvPath + ".completion"}}},
		{"startedAt missing", func(o *v1alpha1.UpdateStatus) { cv(o).StartedAt = metav1.Time{} }, []want{{required, cvPath + ".startedAt"}}},
		{"completedAt zero", func(o *v1alpha1.UpdateStatus) { cv(o).CompletedAt = &metav1.Time{} }, []want{{invalid, cvPath + ".completedAt"}}},
		{"estimatedCompletedAt zero", func(o *v1alpha1.UpdateStatus) { cv(o).EstimatedCompletedAt = &metav1.Time{} },
			[]want{{invalid, cvPath + ".estimatedCompletedAt"}}},
		{"estimatedDurationNanoseconds without estimatedCompletedAt", func(o *v1alpha1.UpdateStatus) {
			cv(o).EstimatedCompletedAt, cv(o).EstimatedDurationNanoseconds = nil, ptr.To(int64(time.Hour))
		}, []want{{required, cvPath + ".estimatedCompletedAt"}}},

		// clusterOperator.
		{"operator name missing", func(o *v1alpha1.UpdateStatus) { etcd(o).Name = "" }, []want{{required, etcdPath + ".name"}}},
		{"operator name too long", func(o *v1alpha1.UpdateStatus) { etcd(o).Name, etcd(o).Resource.Name = long(65), long(65) },
			[]want{{tooLong, etcdPath + ".name"}}},
		{"P-OPNAME", func(o *v1alpha1.UpdateStatus) { etcd(o).Name, etcd(o).Resource.Name = "etcd.v2", "etcd.v2" },
			[]want{{invalid, etcdPath + ".name"}}},
		{"operator name is not resource name", func(o *v1alpha1.UpdateStatus) { etcd(o).Resource.Name = "etcd-2" },
			[]want{{invalid, etcdPath + ".name"}}},
		{"R-CO-RES", func(o *v1alpha1.UpdateStatus) { etcd(o).Resource.Resource = "clusterversions" },
			[]want{{invalid, etcdPath + ".resource"}}},

		// machineConfigPool.
		{"pool insight name pattern", func(o *v1alpha1.UpdateStatus) { mcp(o).Name = "worker_1" },
			[]want{{invalid, mcpPath + ".name"}, {invalid, mcpPath + ".name"}}}, // P-OPNAME and name == resource.name
		{"R-MCP-RES", func(o *v1alpha1.UpdateStatus) { mcp(o).Resource.Group = "hypershift.openshift.io" },
			[]want{{invalid, mcpPath + ".resource"}}},
		{"pool insight names another pool", func(o *v1alpha1.UpdateStatus) { mcp(o).Name, mcp(o).Resource.Name = "infra", "infra" },
			[]want{{invalid, mcpPath + ".resource.name"}}},
		{"scopeType missing", func(o *v1alpha1.UpdateStatus) { mcp(o).Scope = "" }, []want{{required, mcpPath + ".scopeType"}}},
		{"scopeType enum", func(o *v1alpha1.UpdateStatus) { mcp(o).Scope = "Cluster" }, []want{{notSupported, mcpPath + ".scopeType"}}},
		{"pool insight scope under a worker pool", func(o *v1alpha1.UpdateStatus) { mcp(o).Scope = v1alpha1.ControlPlaneScope },
			[]want{{invalid, mcpPath + ".scopeType"}}},
		{"pool insight scope under the control plane", func(o *v1alpha1.UpdateStatus) {
			m := addCPInsight(o, "mcp-master", 0).MachineConfigPoolStatusInsight
			m.Name, m.Resource = "master", mcpRef("master")
		}, []want{{invalid, addedPath + ".machineConfigPool.scopeType"}}},
		{"pool assessment enum", func(o *v1alpha1.UpdateStatus) { mcp(o).Assessment = "Updating" },
			[]want{{notSupported, mcpPath + ".assessment"}}},
		{"pool completion", func(o *v1alpha1.UpdateStatus) { mcp(o).Completion = 101 }, []want{{invalid, mcpPath + ".completion"}}},
		{"too many summaries", func(o *v1alpha1.UpdateStatus) { mcp(o).Summaries = slices.Repeat(mcp(o).Summaries[:1], 17) },
			func() []want {
				w := []want{{tooMany, mcpPath + ".summaries"}}
				for i := 1; i < 17; i++ {
					w = append(w, want{duplicate, fmt.Sprintf("%s.summaries[%d].type", mcpPath, i)})
				}
				return w
			}()},
		{"duplicate summary type", func(o *v1alpha1.UpdateStatus) { mcp(o).Summaries[1].Type = v1alpha1.NodesTotal },
			[]want{{duplicate, mcpPath + ".summaries[1].type"}}},
		{"summary type enum", func(o *v1alpha1.UpdateStatus) { mcp(o).Summaries[1].Type = "Ready" },
			[]want{{notSupported, mcpPath + ".summaries[1].type"}}},
		{"summary count negative", func(o *v1alpha1.UpdateStatus) { mcp(o).Summaries[0].Count = -1 },
			[]want{{invalid, mcpPath + ".summaries[0].count"}}},
		{"summary count above 4096", func(o *v1alpha1.UpdateStatus) { mcp(o).Summaries[0].Count = 4097 },
			[]want{{invalid, mcpPath + ".summaries[0].count"}}},

		// node.
		{"node name missing", func(o *v1alpha1.UpdateStatus) { node(o).Name = "" }, []want{{required, nodePath + ".name"}}},
		{"node name too long", func(o *v1alpha1.UpdateStatus) { node(o).Name = long(254) },
			[]want{{tooLong, nodePath + ".name"}, {invalid, nodePath + ".name"}}}, // and name == resource.name
		{"node name is not resource name", func(o *v1alpha1.UpdateStatus) { node(o).Name = "ip-10-0-20-162" },
			[]want{{invalid, nodePath + ".name"}}},
		{"R-NODE-RES group core", func(o *v1alpha1.UpdateStatus) { node(o).Resource.Group = "core" },
			[]want{{invalid, nodePath + ".resource"}}},
		{"R-NODE-RES resource", func(o *v1alpha1.UpdateStatus) { node(o).Resource.Resource = "machines" },
			[]want{{invalid, nodePath + ".resource"}}},
		{"node pool reference R-MCP-RES", func(o *v1alpha1.UpdateStatus) { node(o).PoolResource.Resource = "nodepools" },
			[]want{{invalid, nodePath + ".poolResource"}}},
		{"node in another pool", func(o *v1alpha1.UpdateStatus) { node(o).PoolResource.Name = "infra" },
			[]want{{invalid, nodePath + ".poolResource.name"}}},
		{"node scope under a worker pool", func(o *v1alpha1.UpdateStatus) { node(o).Scope = v1alpha1.ControlPlaneScope },
			[]want{{invalid, nodePath + ".scopeType"}}},
		{"worker node under the control plane", func(o *v1alpha1.UpdateStatus) { addCPInsight(o, "node-worker-0", 1) },
			[]want{{invalid, addedPath + ".node.scopeType"}, {invalid, addedPath + ".node.poolResource.name"}}},
		{"P-NODEVERSION", func(o *v1alpha1.UpdateStatus) { node(o).Version = "v4.17.5" }, []want{{invalid, nodePath + ".version"}}},
		{"P-NODEVERSION none", func(o *v1alpha1.UpdateStatus) { node(o).Version = "<none>" }, []want{{invalid, nodePath + ".version"}}},
		{"node version too long", func(o *v1alpha1.UpdateStatus) { node(o).Version = "4.17.5-" + long(58) },
			[]want{{tooLong, nodePath + ".version"}}},
		{"node message too long", func(o *v1alpha1.UpdateStatus) { node(o).Message = long(101) },
			[]want{{tooLong, nodePath + ".message"}}},

		// health.
		{"health startedAt missing", func(o *v1alpha1.UpdateStatus) { health(o).StartedAt = metav1.Time{} },
			[]want{{required, healthPath + ".startedAt"}}},
		{"health scope type missing", func(o *v1alpha1.UpdateStatus) { health(o).Scope.Type = "" },
			[]want{{required, healthPath + ".scope.type"}}},
		{"health scope type enum", func(o *v1alpha1.UpdateStatus) { health(o).Scope.Type = "Node" },
			[]want{{notSupported, healthPath + ".scope.type"}}},
		{"control-plane health under a worker pool", func(o *v1alpha1.UpdateStatus) { health(o).Scope.Type = v1alpha1.ControlPlaneScope },
			[]want{{invalid, healthPath + ".scope.type"}}},
		{"too many scope resources", func(o *v1alpha1.UpdateStatus) {
			health(o).Scope.Resources = slices.Repeat(health(o).Scope.Resources, 6)
		}, []want{{tooMany, healthPath + ".scope.resources"}}},
		{"scope resource name missing", func(o *v1alpha1.UpdateStatus) { health(o).Scope.Resources[2].Name = "" },
			[]want{{required, healthPath + ".scope.resources[2].name"}}},
		{"impact level missing", func(o *v1alpha1.UpdateStatus) { health(o).Impact.Level = "" },
			[]want{{required, healthPath + ".impact.level"}}},
		{"impact level enum", func(o *v1alpha1.UpdateStatus) { health(o).Impact.Level = "Fatal" },
			[]want{{notSupported, healthPath + ".impact.level"}}},
		{"impact type enum", func(o *v1alpha1.UpdateStatus) { health(o).Impact.Type = "UpdateSpeed" },
			[]want{{notSupported, healthPath + ".impact.type"}}},
		{"impact summary missing", func(o *v1alpha1.UpdateStatus) { health(o).Impact.Summary = "" },
			[]want{{required, healthPath + ".impact.summary"}}},
		{"impact summary too long", func(o *v1alpha1.UpdateStatus) { health(o).Impact.Summary = long(257) },
			[]want{{tooLong, healthPath + ".impact.summary"}}},
		{"impact description too long", func(o *v1alpha1.UpdateStatus) { health(o).Impact.Description = long(4097) },
			[]want{{tooLong, healthPath + ".impact.description"}}},
		{"reference missing", func(o *v1alpha1.UpdateStatus) { health(o).Remediation.Reference = "" },
			[]want{{required, healthPath + ".remediation.reference"}}},
		{"R-URL", func(o *v1alpha1.UpdateStatus) { health(o).Remediation.Reference = "docs.openshift.com/drain" },
			[]want{{invalid, healthPath + ".remediation.reference"}}},
		{"reference too long", func(o *v1alpha1.UpdateStatus) { health(o).Remediation.Reference = "https://x/" + long(503) },
			[]want{{tooLong, healthPath + ".remediation.reference"}}},
		{"estimatedFinish zero", func(o *v1alpha1.UpdateStatus) { health(o).Remediation.EstimatedFinish = &metav1.Time{} },
			[]want{{invalid, healthPath + ".remediation.estimatedFinish"}}},

		// workerPools.
		{"too many worker pools", func(o *v1alpha1.UpdateStatus) {
			for i := range 32 {
				name := fmt.Sprintf("pool-%d", i)
				o.Status.WorkerPools = append(o.Status.WorkerPools, v1alpha1.Pool{Name: name, Resource: mcpRef(name)})
			}
		}, []want{{tooMany, "status.workerPools"}}},
		{"duplicate pool name", func(o *v1alpha1.UpdateStatus) {
			o.Status.WorkerPools = append(o.Status.WorkerPools, v1alpha1.Pool{Name: "worker", Resource: mcpRef("worker")})
		}, []want{{duplicate, "status.workerPools[1].name"}}},
		{"pool name missing", func(o *v1alpha1.UpdateStatus) { o.Status.WorkerPools[0].Name = "" },
			[]want{{required, poolPath + ".name"}}},
		{"pool name subdomain", func(o *v1alpha1.UpdateStatus) {
			o.Status.WorkerPools = append(o.Status.WorkerPools, v1alpha1.Pool{Name: "Infra", Resource: mcpRef("Infra")})
		}, []want{{invalid, "status.workerPools[1].name"}, {invalid, "status.workerPools[1].resource.name"}}},
		{"pool name too long", func(o *v1alpha1.UpdateStatus) {
			o.Status.WorkerPools = append(o.Status.WorkerPools, v1alpha1.Pool{Name: long(254), Resource: mcpRef(long(254))})
		}, []want{{tooLong, "status.workerPools[1].name"}, {tooLong, "status.workerPools[1].resource.name"}}},
		{"R-WP-NAME", func(o *v1alpha1.UpdateStatus) { o.Status.WorkerPools[0].Resource.Name = "infra" },
			[]want{{invalid, poolPath + ".name"}}},
		{"R-WP-RES", func(o *v1alpha1.UpdateStatus) { o.Status.WorkerPools[0].Resource.Resource = "hostedclusters" },
			[]want{{invalid, poolPath + ".resource"}}},
		{"too many pool informers", func(o *v1alpha1.UpdateStatus) {
			for i := range 16 {
				o.Status.WorkerPools[0].Informers = append(o.Status.WorkerPools[0].Informers, v1alpha1.WorkerPoolInformer{Name: fmt.Sprintf("i%d", i)})
			}
		}, []want{{tooMany, poolPath + ".informers"}}},
		{"duplicate pool informer name", func(o *v1alpha1.UpdateStatus) {
			o.Status.WorkerPools[0].Informers = append(o.Status.WorkerPools[0].Informers, v1alpha1.WorkerPoolInformer{Name: "nodes"})
		}, []want{{duplicate, poolPath + ".informers[1].name"}}},
		{"too many pool insights", func(o *v1alpha1.UpdateStatus) {
			pad := (*wpInsights(o))[4]
			for i := range 1020 {
				pad.UID = fmt.Sprintf("health-%d", i)
				*wpInsights(o) = append(*wpInsights(o), pad)
			}
		}, []want{{tooMany, wpiPath}}},
		{"duplicate pool uid in a long list", func(o *v1alpha1.UpdateStatus) {
			pad := (*wpInsights(o))[4]
			for i := range 30 {
				pad.UID = fmt.Sprintf("health-%d", i)
				*wpInsights(o) = append(*wpInsights(o), pad)
			}
			(*wpInsights(o))[30].UID = "mcp-worker"
		}, []want{{duplicate, wpiPath + "[30].uid"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := example(t)
			tt.mutate(obj)

			errs := validation.ValidateUpdateStatus(obj)

			wantStrs := make([]string, 0, len(tt.want))
			for _, w := range tt.want {
				wantStrs = append(wantStrs, string(w.typ)+" "+w.path)
			}
			slices.Sort(wantStrs)
			if got := errorStrings(errs); !slices.Equal(got, wantStrs) {
				t.Errorf("errors:\n got  %q\n want %q\nfull: %v", got, wantStrs, errs.ToAggregate())
			}
			for _, e := range errs {
				if e.Detail == "" && e.Type != required && e.Type != duplicate && e.Type != tooMany && e.Type != tooLong {
					t.Errorf("%s: no detail", e)
				}
			}
		})
	}
}

// TestInsightListValidators checks the validators of one informer's
// insights (ValidateControlPlaneInsights, ValidateWorkerPoolInsights)
// against the whole object's: on every mutation of the example, they report
// exactly the errors ValidateUpdateStatus reports under that informer's
// insights, rooted at the caller's path instead.
func TestInsightListValidators(t *testing.T) {
	const (
		cpAt = "status.controlPlane.informers[0].insights"
		wpAt = "status.workerPools[0].informers[0].insights"
	)
	tests := []struct {
		name   string
		mutate func(o *v1alpha1.UpdateStatus)
		// part is where the mutation's errors are: cpAt or wpAt.
		part string
	}{
		{"valid", func(*v1alpha1.UpdateStatus) {}, ""},
		{"duplicate control-plane uid", func(o *v1alpha1.UpdateStatus) { (*cpInsights(o))[1].UID = (*cpInsights(o))[0].UID }, cpAt},
		{"bad assessment", func(o *v1alpha1.UpdateStatus) { cv(o).Assessment = "Fine" }, cpAt},
		{"node of another pool", func(o *v1alpha1.UpdateStatus) { node(o).PoolResource = mcpRef("infra") }, wpAt},
		{"health with a control-plane scope in a pool", func(o *v1alpha1.UpdateStatus) { health(o).Scope.Type = v1alpha1.ControlPlaneScope }, wpAt},
		{"union member missing", func(o *v1alpha1.UpdateStatus) { wpUnion(o, 1).NodeStatusInsight = nil }, wpAt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := example(t)
			tt.mutate(o)
			pool := o.Status.WorkerPools[0].Name
			got := map[string][]string{
				cpAt: errorStrings(validation.ValidateControlPlaneInsights(*cpInsights(o), field.NewPath("spec", "cp"))),
				wpAt: errorStrings(validation.ValidateWorkerPoolInsights(pool, *wpInsights(o), field.NewPath("spec", "wp"))),
			}
			want := map[string][]string{cpAt: {}, wpAt: {}}
			for _, e := range errorStrings(validation.ValidateUpdateStatus(o)) {
				typ, at, _ := strings.Cut(e, " ")
				for part, root := range map[string]string{cpAt: "spec.cp", wpAt: "spec.wp"} {
					if rest, ok := strings.CutPrefix(at, part); ok {
						want[part] = append(want[part], typ+" "+root+rest)
					}
				}
			}
			if tt.part != "" && len(want[tt.part]) == 0 {
				t.Fatalf("the whole object reports nothing under %s: the case tests nothing", tt.part)
			}
			for part := range want {
				if !slices.Equal(got[part], want[part]) {
					t.Errorf("under %s: got %q, want %q", part, got[part], want[part])
				}
			}
		})
	}
}
