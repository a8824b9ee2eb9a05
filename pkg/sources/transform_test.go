package sources

import (
	"reflect"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
)

var managed = []metav1.ManagedFieldsEntry{{Manager: "kubelet"}}

func TestTransforms(t *testing.T) {
	tests := []struct {
		name      string
		transform cache.TransformFunc
		in        interface{}
		want      interface{}
	}{
		{
			name:      "node keeps conditions, unschedulable, labels and MCO annotations",
			transform: transformNode,
			in: &corev1.Node{
				ObjectMeta: metav1.ObjectMeta{Name: "n1", ResourceVersion: "7", ManagedFields: managed,
					Labels: map[string]string{"node-role.kubernetes.io/worker": ""},
					Annotations: map[string]string{
						"machineconfiguration.openshift.io/currentConfig": "rendered-worker-1",
						"machineconfiguration.openshift.io/state":         "Done",
						"k8s.ovn.org/node-subnets":                        `{"default":["10.128.2.0/23"]}`,
					}},
				Spec: corev1.NodeSpec{Unschedulable: true, ProviderID: "aws:///i-1", PodCIDR: "10.0.0.0/24"},
				Status: corev1.NodeStatus{
					Conditions:      []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
					Images:          []corev1.ContainerImage{{Names: []string{"quay.io/x"}}},
					VolumesInUse:    []corev1.UniqueVolumeName{"v"},
					VolumesAttached: []corev1.AttachedVolume{{Name: "v"}},
					NodeInfo:        corev1.NodeSystemInfo{KubeletVersion: "v1.30"},
					DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}},
					Addresses:       []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.1"}},
				},
			},
			want: &corev1.Node{
				ObjectMeta: metav1.ObjectMeta{Name: "n1", ResourceVersion: "7",
					Labels: map[string]string{"node-role.kubernetes.io/worker": ""},
					Annotations: map[string]string{
						"machineconfiguration.openshift.io/currentConfig": "rendered-worker-1",
						"machineconfiguration.openshift.io/state":         "Done",
					}},
				Spec:   corev1.NodeSpec{Unschedulable: true},
				Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
			},
		},
		{
			name:      "machine config keeps name, uid, resourceVersion and the release version",
			transform: transformMachineConfig,
			in: &mcfgv1.MachineConfig{
				ObjectMeta: metav1.ObjectMeta{Name: "rendered-worker-1", UID: "u", ResourceVersion: "3", ManagedFields: managed,
					Labels: map[string]string{"a": "b"},
					Annotations: map[string]string{
						ReleaseImageVersionAnnotation:                                       "4.17.5",
						"machineconfiguration.openshift.io/generated-by-controller-version": "abc",
					}},
				Spec: mcfgv1.MachineConfigSpec{OSImageURL: "quay.io/os", KernelArguments: []string{"a"}},
			},
			want: &mcfgv1.MachineConfig{ObjectMeta: metav1.ObjectMeta{Name: "rendered-worker-1", UID: "u", ResourceVersion: "3",
				Annotations: map[string]string{ReleaseImageVersionAnnotation: "4.17.5"}}},
		},
		{
			name:      "machine config without the annotation",
			transform: transformMachineConfig,
			in:        &mcfgv1.MachineConfig{ObjectMeta: metav1.ObjectMeta{Name: "00-worker", Annotations: map[string]string{"x": "y"}}},
			want:      &mcfgv1.MachineConfig{ObjectMeta: metav1.ObjectMeta{Name: "00-worker"}},
		},
		{
			name:      "deployment keeps container names and images",
			transform: transformDeployment,
			in: &appsv1.Deployment{
				ObjectMeta: metav1.ObjectMeta{Name: MCODeploymentName, Namespace: MCONamespace, ManagedFields: managed, Annotations: map[string]string{"a": "b"}},
				Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
					Containers:     []corev1.Container{{Name: "machine-config-operator", Image: "quay.io/mco@sha256:1", Args: []string{"start"}}},
					InitContainers: []corev1.Container{{Name: "init"}},
				}}},
				Status: appsv1.DeploymentStatus{Replicas: 1},
			},
			want: &appsv1.Deployment{
				ObjectMeta: metav1.ObjectMeta{Name: MCODeploymentName, Namespace: MCONamespace},
				Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
					Containers: []corev1.Container{{Name: "machine-config-operator", Image: "quay.io/mco@sha256:1"}},
				}}},
			},
		},
		{
			name:      "cluster version drops spec and update lists",
			transform: transformClusterVersion,
			in: &configv1.ClusterVersion{
				ObjectMeta: metav1.ObjectMeta{Name: "version", ManagedFields: managed},
				Spec:       configv1.ClusterVersionSpec{ClusterID: "id", Channel: "stable-4.17"},
				Status: configv1.ClusterVersionStatus{
					Desired:          configv1.Release{Version: "4.17.5"},
					History:          []configv1.UpdateHistory{{Version: "4.17.5", State: configv1.PartialUpdate}},
					AvailableUpdates: []configv1.Release{{Version: "4.17.6"}},
					Conditions:       []configv1.ClusterOperatorStatusCondition{{Type: "Progressing", Status: configv1.ConditionTrue}},
				},
			},
			want: &configv1.ClusterVersion{
				ObjectMeta: metav1.ObjectMeta{Name: "version"},
				Status: configv1.ClusterVersionStatus{
					Desired:    configv1.Release{Version: "4.17.5"},
					History:    []configv1.UpdateHistory{{Version: "4.17.5", State: configv1.PartialUpdate}},
					Conditions: []configv1.ClusterOperatorStatusCondition{{Type: "Progressing", Status: configv1.ConditionTrue}},
				},
			},
		},
		{
			name:      "cluster operator drops related objects",
			transform: transformClusterOperator,
			in: &configv1.ClusterOperator{
				ObjectMeta: metav1.ObjectMeta{Name: "etcd", ManagedFields: managed, Annotations: map[string]string{"include.release.openshift.io/self-managed-high-availability": "true"}},
				Status: configv1.ClusterOperatorStatus{
					Versions:       []configv1.OperandVersion{{Name: "operator", Version: "4.17.5"}},
					RelatedObjects: []configv1.ObjectReference{{Resource: "namespaces", Name: "openshift-etcd"}},
					Extension:      runtime.RawExtension{Raw: []byte(`{}`)},
				},
			},
			want: &configv1.ClusterOperator{
				ObjectMeta: metav1.ObjectMeta{Name: "etcd", Annotations: map[string]string{"include.release.openshift.io/self-managed-high-availability": "true"}},
				Status:     configv1.ClusterOperatorStatus{Versions: []configv1.OperandVersion{{Name: "operator", Version: "4.17.5"}}},
			},
		},
		{
			name:      "machine config pool keeps selector, paused and target config",
			transform: transformMachineConfigPool,
			in: &mcfgv1.MachineConfigPool{
				ObjectMeta: metav1.ObjectMeta{Name: "worker", ManagedFields: managed},
				Spec: mcfgv1.MachineConfigPoolSpec{
					NodeSelector:          &metav1.LabelSelector{MatchLabels: map[string]string{"node-role.kubernetes.io/worker": ""}},
					MachineConfigSelector: &metav1.LabelSelector{},
					Paused:                true,
					Configuration: mcfgv1.MachineConfigPoolStatusConfiguration{
						ObjectReference: corev1.ObjectReference{Name: "rendered-worker-2"},
						Source:          []corev1.ObjectReference{{Name: "00-worker"}},
					},
				},
				Status: mcfgv1.MachineConfigPoolStatus{MachineCount: 3, Conditions: []mcfgv1.MachineConfigPoolCondition{{Type: "Updating"}}},
			},
			want: &mcfgv1.MachineConfigPool{
				ObjectMeta: metav1.ObjectMeta{Name: "worker"},
				Spec: mcfgv1.MachineConfigPoolSpec{
					NodeSelector:  &metav1.LabelSelector{MatchLabels: map[string]string{"node-role.kubernetes.io/worker": ""}},
					Paused:        true,
					Configuration: mcfgv1.MachineConfigPoolStatusConfiguration{ObjectReference: corev1.ObjectReference{Name: "rendered-worker-2"}},
				},
				Status: mcfgv1.MachineConfigPoolStatus{MachineCount: 3, Conditions: []mcfgv1.MachineConfigPoolCondition{{Type: "Updating"}}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.transform(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got\n%#v\nwant\n%#v", got, tt.want)
			}
			// Idempotent.
			again, err := tt.transform(got)
			if err != nil || !reflect.DeepEqual(again, tt.want) {
				t.Fatalf("second pass changed the object: %#v, %v", again, err)
			}
		})
	}
}

func TestTransformsPassThroughOtherTypes(t *testing.T) {
	tombstone := cache.DeletedFinalStateUnknown{Key: "n1", Obj: &corev1.Node{}}
	for _, tf := range []cache.TransformFunc{transformNode, transformMachineConfig, transformMachineConfigPool,
		transformClusterOperator, transformClusterVersion, transformDeployment} {
		got, err := tf(tombstone)
		if err != nil || !reflect.DeepEqual(got, tombstone) {
			t.Errorf("tombstone changed: %#v, %v", got, err)
		}
	}
}

func TestCompactManagedFields(t *testing.T) {
	at := func(m int) *metav1.Time {
		tm := metav1.NewTime(time.Date(2025, 3, 12, 10, m, 0, 0, time.UTC))
		return &tm
	}
	tests := []struct {
		name string
		in   []metav1.ManagedFieldsEntry
		want []metav1.ManagedFieldsEntry
	}{
		{name: "none", in: nil, want: nil},
		{name: "no times", in: []metav1.ManagedFieldsEntry{{Manager: "a"}}, want: nil},
		{name: "only the status subresource", in: []metav1.ManagedFieldsEntry{{Manager: "kubelet", Subresource: "status", Time: at(9)}}, want: nil},
		{
			name: "the latest main-resource time stays, without field sets",
			in: []metav1.ManagedFieldsEntry{
				{Manager: "a", Time: at(1), FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{}}`)}},
				{Manager: "kubelet", Subresource: "status", Time: at(9)},
				{Manager: "b", Time: at(5)},
			},
			want: []metav1.ManagedFieldsEntry{{Time: at(5)}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := metav1.ObjectMeta{ManagedFields: tt.in}
			compactManagedFields(&m)
			if !reflect.DeepEqual(m.ManagedFields, tt.want) {
				t.Fatalf("got %+v, want %+v", m.ManagedFields, tt.want)
			}
		})
	}
}
