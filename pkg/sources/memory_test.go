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

package sources

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"

	"github.com/update-status/apiserver/internal/ocp"
	"github.com/update-status/apiserver/internal/testio"
	"github.com/update-status/apiserver/pkg/insights"
)

// realisticNode is node i of a large OpenShift cluster as the API server
// serves it: 14 labels, 12 annotations, four managedFields entries with
// their field sets, four conditions, 40 images, addresses, capacity and
// node info. What varies between nodes varies as it does in a real cluster
// (names, UIDs, addresses, times, IDs); the rest repeats.
func realisticNode(i int) *corev1.Node {
	name := fmt.Sprintf("ip-10-0-%d-%d.us-east-2.compute.internal", i/250, 4+i%250)
	zone := "us-east-2" + string(rune('a'+i%3))
	created := time.Date(2025, 3, 12, 8, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second)
	at := func(d time.Duration) *metav1.Time { t := metav1.NewTime(created.Add(d)); return &t }
	rendered := "rendered-worker-4cec9ed3a634560e5c083a187c8f93a7"
	if i%2 == 1 {
		rendered = "rendered-worker-0b5d0f2d33a1f1e5d1f8e6d8c6b1b2c3"
	}
	fields := func(keys ...string) *metav1.FieldsV1 {
		var b strings.Builder
		b.WriteString(`{"f:metadata":{"f:annotations":{`)
		for j, k := range keys {
			if j > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `"f:%s":{}`, k)
		}
		b.WriteString(`}}}`)
		return metav1.NewFieldsV1(b.String())
	}
	images := make([]corev1.ContainerImage, 40)
	for j := range images {
		digest := fmt.Sprintf("%064x", j*7919+1)
		images[j] = corev1.ContainerImage{
			Names:     []string{"quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:" + digest, fmt.Sprintf("quay.io/openshift-release-dev/ocp-v4.0-art-dev:component-%d", j)},
			SizeBytes: int64(400000000 + j*1000),
		}
	}
	cond := func(t corev1.NodeConditionType, s corev1.ConditionStatus, reason, msg string) corev1.NodeCondition {
		return corev1.NodeCondition{Type: t, Status: s, Reason: reason, Message: msg,
			LastHeartbeatTime: *at(20 * time.Hour), LastTransitionTime: *at(2 * time.Minute)}
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:              name,
			UID:               types.UID(fmt.Sprintf("88626d63-b4f4-44a5-b0bc-%012x", i)),
			ResourceVersion:   fmt.Sprint(100000 + i),
			CreationTimestamp: metav1.NewTime(created),
			Labels: map[string]string{
				"beta.kubernetes.io/arch":                  "amd64",
				"beta.kubernetes.io/instance-type":         "m6i.xlarge",
				"beta.kubernetes.io/os":                    "linux",
				"failure-domain.beta.kubernetes.io/region": "us-east-2",
				"failure-domain.beta.kubernetes.io/zone":   zone,
				"kubernetes.io/arch":                       "amd64",
				"kubernetes.io/hostname":                   strings.SplitN(name, ".", 2)[0],
				"kubernetes.io/os":                         "linux",
				"node-role.kubernetes.io/worker":           "",
				"node.kubernetes.io/instance-type":         "m6i.xlarge",
				"node.openshift.io/os_id":                  "rhcos",
				"topology.ebs.csi.aws.com/zone":            zone,
				"topology.kubernetes.io/region":            "us-east-2",
				"topology.kubernetes.io/zone":              zone,
			},
			Annotations: map[string]string{
				"cloud.network.openshift.io/egress-ipconfig":                                  `[{"interface":"eni-0` + fmt.Sprintf("%016x", i) + `","ifaddr":{"ipv4":"10.0.0.0/19"},"capacity":{"ipv4":14,"ipv6":15}}]`,
				"csi.volume.kubernetes.io/nodeid":                                             `{"ebs.csi.aws.com":"i-0` + fmt.Sprintf("%016x", i) + `"}`,
				"k8s.ovn.org/host-cidrs":                                                      fmt.Sprintf(`["10.0.%d.%d/19"]`, i/250, 4+i%250),
				"k8s.ovn.org/node-subnets":                                                    fmt.Sprintf(`{"default":["10.%d.%d.0/23"]}`, 128+i/128, (2*i)%256),
				"machine.openshift.io/machine":                                                fmt.Sprintf("openshift-machine-api/ci-ln-x7k2b-worker-%s-%d", zone, i),
				"machineconfiguration.openshift.io/controlPlaneTopology":                      "HighlyAvailable",
				"machineconfiguration.openshift.io/currentConfig":                             rendered,
				"machineconfiguration.openshift.io/desiredConfig":                             rendered,
				"machineconfiguration.openshift.io/desiredDrain":                              "uncordon-" + rendered,
				"machineconfiguration.openshift.io/lastAppliedDrain":                          "uncordon-" + rendered,
				"machineconfiguration.openshift.io/lastSyncedControllerConfigResourceVersion": "24893",
				"machineconfiguration.openshift.io/state":                                     "Done",
			},
			ManagedFields: []metav1.ManagedFieldsEntry{
				{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: at(0), FieldsType: "FieldsV1",
					FieldsV1: fields("volumes.kubernetes.io/controller-managed-attach-detach", "f:labels", "beta.kubernetes.io/arch", "beta.kubernetes.io/os", "kubernetes.io/arch", "kubernetes.io/hostname", "kubernetes.io/os", "node-role.kubernetes.io/worker", "node.openshift.io/os_id")},
				{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: at(20 * time.Hour), FieldsType: "FieldsV1", Subresource: "status",
					FieldsV1: fields(strings.Repeat("f:status images conditions allocatable capacity nodeInfo ", 30))},
				{Manager: "machine-config-daemon", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: at(5 * time.Minute), FieldsType: "FieldsV1",
					FieldsV1: fields("machineconfiguration.openshift.io/currentConfig", "machineconfiguration.openshift.io/desiredConfig", "machineconfiguration.openshift.io/state", "machineconfiguration.openshift.io/reason")},
				{Manager: "ovnkube", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: at(3 * time.Minute), FieldsType: "FieldsV1", Subresource: "status",
					FieldsV1: fields("k8s.ovn.org/host-cidrs", "k8s.ovn.org/node-subnets", "k8s.ovn.org/node-chassis-id", "k8s.ovn.org/node-encap-ips")},
			},
		},
		Spec: corev1.NodeSpec{ProviderID: fmt.Sprintf("aws:///%s/i-0%016x", zone, i)},
		Status: corev1.NodeStatus{
			Capacity:    ocp.NodeCapacity(),
			Allocatable: ocp.NodeAllocatable(),
			Conditions: []corev1.NodeCondition{
				cond(corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
				cond(corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
				cond(corev1.NodePIDPressure, corev1.ConditionFalse, "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
				cond(corev1.NodeReady, corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status"),
			},
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("10.0.%d.%d", i/250, 4+i%250)},
				{Type: corev1.NodeHostName, Address: name},
				{Type: corev1.NodeInternalDNS, Address: name},
			},
			DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}},
			NodeInfo: corev1.NodeSystemInfo{
				MachineID: fmt.Sprintf("%032x", i), SystemUUID: fmt.Sprintf("ec2a3c1e-54b3-4c1d-9a0e-%012x", i), BootID: fmt.Sprintf("5b1f0c1e-0d5e-4f6b-8f3a-%012x", i),
				KernelVersion: "5.14.0-570.21.1.el9_6.x86_64", OSImage: "Red Hat Enterprise Linux CoreOS 9.6.20250611-0 (Plow)",
				ContainerRuntimeVersion: "cri-o://1.32.5-2.rhaos4.19.el9", KubeletVersion: "v1.32.5", OperatingSystem: "linux", Architecture: "amd64",
			},
			Images: images,
		},
	}
}

// transformNodeInPlace is the alternative transformNode is measured against
// in BenchmarkNodeCacheMemory: it trims the decoded object in place, so the
// maps keep their room and every string its own allocation.
func transformNodeInPlace(obj interface{}) (interface{}, error) {
	node, ok := obj.(*corev1.Node)
	if !ok {
		return obj, nil
	}
	node.ManagedFields = compactedManagedFields(node.ManagedFields)
	for k := range node.Annotations {
		if !strings.HasPrefix(k, "machineconfiguration.openshift.io/") {
			delete(node.Annotations, k)
		}
	}
	node.Spec = corev1.NodeSpec{Unschedulable: node.Spec.Unschedulable}
	node.Status = corev1.NodeStatus{Conditions: node.Status.Conditions}
	return node, nil
}

// transformNodeRebuilt is the transform before the engine read
// insights.Node: a fresh corev1.Node with what the engine reads, strings
// interned and annotations shared. transformNode is measured against it.
func transformNodeRebuilt(obj interface{}) (interface{}, error) {
	node, ok := obj.(*corev1.Node)
	if !ok {
		return obj, nil
	}
	out := &corev1.Node{TypeMeta: metav1.TypeMeta{Kind: intern(node.Kind), APIVersion: intern(node.APIVersion)}}
	out.Name, out.UID, out.ResourceVersion = node.Name, node.UID, node.ResourceVersion
	out.CreationTimestamp = node.CreationTimestamp
	out.ManagedFields = compactedManagedFields(node.ManagedFields)
	out.Labels = make(map[string]string, len(node.Labels))
	for k, v := range node.Labels {
		out.Labels[intern(k)] = intern(v)
	}
	out.Annotations = nodeAnnotationSets.share(insights.NodeOf(node, intern).Annotations)
	out.Spec.Unschedulable = node.Spec.Unschedulable
	out.Status.Conditions = make([]corev1.NodeCondition, len(node.Status.Conditions))
	for i := range node.Status.Conditions {
		c := &node.Status.Conditions[i]
		out.Status.Conditions[i] = corev1.NodeCondition{Type: corev1.NodeConditionType(intern(string(c.Type))),
			Status: corev1.ConditionStatus(intern(string(c.Status))), LastTransitionTime: c.LastTransitionTime,
			Reason: intern(c.Reason), Message: intern(c.Message)}
	}
	return out, nil
}

// cacheBytesPerNode decodes every encoded Node as a watch event is decoded
// (the client's protobuf serializer), transforms it, keeps it as a cache
// would, and returns the live heap that adds per node.
func cacheBytesPerNode(b *testing.B, encoded [][]byte, transform cache.TransformFunc) float64 {
	b.Helper()
	codec := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
	kept := make([]interface{}, len(encoded))
	before := testio.LiveHeap()
	for i, data := range encoded {
		obj, _, err := codec.Decode(data, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		if kept[i], err = transform(obj); err != nil {
			b.Fatal(err)
		}
	}
	after := testio.LiveHeap()
	ok := false
	switch n := kept[len(kept)-1].(type) {
	case *corev1.Node:
		ok = len(n.Status.Conditions) == 4 && n.Labels["kubernetes.io/os"] == "linux"
	case *insights.Node:
		ok = len(n.Conditions) == 2 && n.Labels.Get("kubernetes.io/os") == "linux"
	}
	if !ok {
		b.Fatalf("unexpected cached node %#v", kept[len(kept)-1])
	}
	runtime.KeepAlive(kept)
	return float64(int64(after)-int64(before)) / float64(len(encoded))
}

// BenchmarkNodeCacheMemory reports the heap a Node informer cache holds per
// node, side by side in one run: no transform, the old in-place trim, the
// rebuilt corev1.Node that came next and the insights.Node of transformNode,
// on 5,000 realistic Nodes decoded from protobuf one by one (as watch events
// are).
func BenchmarkNodeCacheMemory(b *testing.B) {
	const nodes = 5000
	codec := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
	encoded := make([][]byte, nodes)
	size := 0
	for i := range encoded {
		n := realisticNode(i)
		n.APIVersion, n.Kind = "v1", "Node"
		var buf strings.Builder
		if err := codec.Encode(n, &buf); err != nil {
			b.Fatal(err)
		}
		encoded[i] = []byte(buf.String())
		size += buf.Len()
	}
	b.ReportMetric(float64(size)/nodes, "wire-B/node")
	var none, old, rebuilt, compact float64
	for i := 0; i < b.N; i++ {
		none = cacheBytesPerNode(b, encoded, func(obj interface{}) (interface{}, error) { return obj, nil })
		old = cacheBytesPerNode(b, encoded, transformNodeInPlace)
		rebuilt = cacheBytesPerNode(b, encoded, transformNodeRebuilt)
		compact = cacheBytesPerNode(b, encoded, transformNode)
	}
	b.ReportMetric(none, "untransformed-B/node")
	b.ReportMetric(old, "inplace-B/node")
	b.ReportMetric(rebuilt, "rebuilt-B/node")
	b.ReportMetric(compact, "compact-B/node")
	if compact > 0 {
		b.ReportMetric(rebuilt/compact, "rebuilt/compact")
	}
}
