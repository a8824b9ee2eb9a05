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

package examplecluster

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/update-status/apiserver/internal/localstack"
	"github.com/update-status/apiserver/internal/ocp"
	"github.com/update-status/apiserver/pkg/insights"
)

// ReferenceInstant is the "now" the timestamps of artifacts/examples are
// written against; Create shifts them to the real now.
var ReferenceInstant = time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)

// Names of the example cluster.
const masterPool = "master"

// Cluster is the example cluster in one control plane. It keeps no state
// between calls: every Step reads the objects afresh.
type Cluster struct {
	// Dir holds the example manifests (artifacts/examples).
	Dir string
	// Applier creates the example objects.
	Applier *localstack.Applier
	// Dynamic and Kube read and write the cluster's objects.
	Dynamic dynamic.Interface
	Kube    kubernetes.Interface
	Clock   clock.Clock
}

// New returns the example cluster of repoRoot/artifacts/examples for the
// control plane cp.
func New(cp *localstack.ControlPlane) (*Cluster, error) {
	cfg := cp.RESTConfig(&cp.Users.Admin)
	// The openshift/api Go types carry fields of feature-gated CRD variants
	// (ClusterVersion spec.signatureStores) that the -Default CRD prunes with
	// a warning on every write; the driver does not need to hear it.
	cfg.WarningHandler = rest.NoWarnings{}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &Cluster{
		Dir:     filepath.Join(cp.RepoRoot, "artifacts", "examples"),
		Applier: cp.Applier,
		Dynamic: dyn,
		Kube:    cp.Kube,
		Clock:   clock.RealClock{},
	}, nil
}

func (c *Cluster) dyn() dynamic.Interface { return c.Dynamic }

// Create applies the example objects, their timestamps shifted so that the
// reference instant becomes now.
func (c *Cluster) Create(ctx context.Context) error {
	objs, err := localstack.ReadManifests(nil, c.Dir)
	if err != nil {
		return err
	}
	shift := c.Clock.Now().Sub(ReferenceInstant).Truncate(time.Second)
	for _, o := range objs {
		shiftTimes(o.Object, shift)
	}
	localstack.SortForApply(objs)
	_, err = c.Applier.Apply(ctx, objs...)
	return err
}

// shiftTimes moves every RFC 3339 string under a key ending in "Time" by d.
func shiftTimes(v any, d time.Duration) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && strings.HasSuffix(k, "Time") {
				if t, err := time.Parse(time.RFC3339, s); err == nil {
					v[k] = t.Add(d).UTC().Format(time.RFC3339)
				}
				continue
			}
			shiftTimes(x, d)
		}
	case []any:
		for _, x := range v {
			shiftTimes(x, d)
		}
	}
}

// Progress says what one Step did.
type Progress struct {
	// Action describes the change made; empty when nothing changed.
	Action string
	// Done is true when the current update is complete: the ClusterVersion
	// says Completed and every node of every pool runs the target version.
	Done bool
}

// snapshot is the cluster as one Step sees it.
type snapshot struct {
	cv     *configv1.ClusterVersion
	target string
	cos    []configv1.ClusterOperator // machine-config last
	pools  []mcfgv1.MachineConfigPool // master first
	nodes  []corev1.Node
}

func (c *Cluster) read(ctx context.Context) (*snapshot, error) {
	s := &snapshot{}
	var err error
	if s.cv, err = Get[configv1.ClusterVersion](ctx, c.dyn(), ClusterVersions, insights.ClusterVersionName); err != nil {
		return nil, err
	}
	s.target = s.cv.Status.Desired.Version
	if s.cos, err = List[configv1.ClusterOperator](ctx, c.dyn(), ClusterOperators); err != nil {
		return nil, err
	}
	slices.SortFunc(s.cos, func(a, b configv1.ClusterOperator) int {
		return compareLast(a.Name, b.Name, insights.MCOClusterOperatorName)
	})
	if s.pools, err = List[mcfgv1.MachineConfigPool](ctx, c.dyn(), MachineConfigPools); err != nil {
		return nil, err
	}
	slices.SortFunc(s.pools, func(a, b mcfgv1.MachineConfigPool) int {
		return -compareLast(a.Name, b.Name, masterPool)
	})
	nodes, err := c.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	s.nodes = nodes.Items
	slices.SortFunc(s.nodes, func(a, b corev1.Node) int { return strings.Compare(a.Name, b.Name) })
	return s, nil
}

// compareLast orders names alphabetically, except that last sorts after all.
func compareLast(a, b, last string) int {
	switch {
	case a == b:
		return 0
	case a == last:
		return 1
	case b == last:
		return -1
	}
	return strings.Compare(a, b)
}

func operatorVersion(co *configv1.ClusterOperator) string {
	for _, v := range co.Status.Versions {
		if v.Name == insights.OperatorVersionName {
			return v.Version
		}
	}
	return ""
}

func isTrue(conds []configv1.ClusterOperatorStatusCondition, typ configv1.ClusterStatusConditionType) bool {
	c := ocp.FindClusterCondition(conds, typ)
	return c != nil && c.Status == configv1.ConditionTrue
}

// Step makes the next change of the update, as the operators would: first the
// ClusterOperators one after another (machine-config last, which also renders
// the new MachineConfigs and starts the pools rolling), then the nodes of
// every pool (maxUnavailable at a time, each through drain, reboot and
// done), then the ClusterVersion's completion. Nodes in the Degraded state
// and paused pools are left alone, so faults injected between steps hold.
func (c *Cluster) Step(ctx context.Context) (Progress, error) {
	s, err := c.read(ctx)
	if err != nil {
		return Progress{}, err
	}
	now := c.Clock.Now()
	if len(s.cv.Status.History) == 0 {
		return Progress{}, fmt.Errorf("ClusterVersion has no history")
	}

	// 1. The operator that is updating finishes (machine-config waits for the
	// master pool).
	for i := range s.cos {
		co := &s.cos[i]
		if co.Name != insights.MCOClusterOperatorName && operatorVersion(co) != s.target && isTrue(co.Status.Conditions, configv1.OperatorProgressing) {
			return Progress{Action: "ClusterOperator " + co.Name + " updated to " + s.target},
				c.finishOperator(ctx, co.Name, s.target, now)
		}
	}
	// 2. The next operator starts.
	for i := range s.cos {
		co := &s.cos[i]
		if operatorVersion(co) == s.target || isTrue(co.Status.Conditions, configv1.OperatorProgressing) {
			continue
		}
		if co.Name == insights.MCOClusterOperatorName {
			return Progress{Action: "machine-config operator renders " + s.target + " and starts rolling the pools"},
				c.startMachineConfig(ctx, s, now)
		}
		return Progress{Action: "ClusterOperator " + co.Name + " starts updating"},
			c.setProgressing(ctx, co.Name, "Working towards "+s.target, now)
	}
	// 3. machine-config reports the new version once the master pool is done.
	for i := range s.cos {
		co := &s.cos[i]
		if co.Name == insights.MCOClusterOperatorName && operatorVersion(co) != s.target && isTrue(co.Status.Conditions, configv1.OperatorProgressing) &&
			c.poolUpdated(s, masterPool) {
			return Progress{Action: "ClusterOperator machine-config updated to " + s.target},
				c.finishOperator(ctx, co.Name, s.target, now)
		}
	}
	// 4. The ClusterVersion completes when every operator is at the target
	// (worker pools may still be rolling).
	if s.cv.Status.History[0].State == configv1.PartialUpdate && allOperatorsAt(s.cos, s.target) {
		return Progress{Action: "ClusterVersion completes the update to " + s.target}, c.completeClusterVersion(ctx, now)
	}
	// 5. The pools roll.
	var actions []string
	for i := range s.pools {
		a, err := c.stepPool(ctx, s, &s.pools[i], now)
		if err != nil {
			return Progress{}, err
		}
		actions = append(actions, a...)
	}
	if len(actions) > 0 {
		return Progress{Action: strings.Join(actions, "; ")}, nil
	}
	if s.cv.Status.History[0].State == configv1.PartialUpdate {
		return Progress{}, nil // waiting (a fault, a paused master pool)
	}
	for _, p := range s.pools {
		if !c.poolUpdated(s, p.Name) {
			return Progress{}, nil
		}
	}
	return Progress{Done: true}, nil
}

func allOperatorsAt(cos []configv1.ClusterOperator, version string) bool {
	for i := range cos {
		if operatorVersion(&cos[i]) != version {
			return false
		}
	}
	return true
}

func (c *Cluster) setProgressing(ctx context.Context, name, message string, now time.Time) error {
	return Mutate(ctx, c.dyn(), ClusterOperators, name, true, func(co *configv1.ClusterOperator) bool {
		ocp.SetClusterCondition(&co.Status.Conditions, configv1.OperatorProgressing,
			configv1.ConditionTrue, "Updating", message, now)
		return true
	})
}

func (c *Cluster) finishOperator(ctx context.Context, name, target string, now time.Time) error {
	return Mutate(ctx, c.dyn(), ClusterOperators, name, true, func(co *configv1.ClusterOperator) bool {
		for i := range co.Status.Versions {
			switch co.Status.Versions[i].Name {
			case insights.OperatorVersionName:
				co.Status.Versions[i].Version = target
			case insights.OperatorImageVersionName:
				co.Status.Versions[i].Version = MCOImage(target)
			}
		}
		ocp.SetClusterCondition(&co.Status.Conditions, configv1.OperatorProgressing,
			configv1.ConditionFalse, "AsExpected", "All is well", now)
		return true
	})
}

// startMachineConfig does what a new machine-config operator does first:
// its Deployment runs the new image, it renders each pool's configuration
// for the target version and points the pools at them.
func (c *Cluster) startMachineConfig(ctx context.Context, s *snapshot, now time.Time) error {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		d, err := c.Kube.AppsV1().Deployments(insights.MCONamespace).Get(ctx, insights.MCODeploymentName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for i := range d.Spec.Template.Spec.Containers {
			if d.Spec.Template.Spec.Containers[i].Name == insights.MCOContainerName {
				d.Spec.Template.Spec.Containers[i].Image = MCOImage(s.target)
			}
		}
		_, err = c.Kube.AppsV1().Deployments(insights.MCONamespace).Update(ctx, d, metav1.UpdateOptions{FieldManager: fieldManager})
		return err
	})
	if err != nil {
		return fmt.Errorf("machine-config-operator Deployment: %w", err)
	}
	for _, p := range s.pools {
		mc := &mcfgv1.MachineConfig{
			TypeMeta: metav1.TypeMeta{APIVersion: mcfgv1.GroupVersion.String(), Kind: "MachineConfig"},
			ObjectMeta: metav1.ObjectMeta{
				Name:        RenderedConfig(p.Name, s.target),
				Labels:      map[string]string{mcfgv1.MachineConfigRoleLabelKey: p.Name},
				Annotations: map[string]string{insights.ReleaseImageVersionAnnotation: s.target},
			},
		}
		if err := Create(ctx, c.dyn(), MachineConfigs, mc); err != nil {
			return fmt.Errorf("MachineConfig %s: %w", mc.Name, err)
		}
		err := Mutate(ctx, c.dyn(), MachineConfigPools, p.Name, false, func(p *mcfgv1.MachineConfigPool) bool {
			p.Spec.Configuration.Name = RenderedConfig(p.Name, s.target)
			return true
		})
		if err != nil {
			return err
		}
	}
	return c.setProgressing(ctx, insights.MCOClusterOperatorName, "Working towards "+s.target, now)
}

// poolNodes returns the nodes the pool selects.
func poolNodes(s *snapshot, p *mcfgv1.MachineConfigPool) ([]*corev1.Node, error) {
	sel, err := metav1.LabelSelectorAsSelector(p.Spec.NodeSelector)
	if err != nil {
		return nil, fmt.Errorf("pool %s: %w", p.Name, err)
	}
	var out []*corev1.Node
	for i := range s.nodes {
		if p.Spec.NodeSelector != nil && sel.Matches(labels.Set(s.nodes[i].Labels)) {
			out = append(out, &s.nodes[i])
		}
	}
	return out, nil
}

func (c *Cluster) poolUpdated(s *snapshot, pool string) bool {
	for i := range s.pools {
		p := &s.pools[i]
		if p.Name != pool {
			continue
		}
		nodes, err := poolNodes(s, p)
		if err != nil {
			return false
		}
		target := RenderedConfig(p.Name, s.target)
		for _, n := range nodes {
			if n.Annotations[insights.CurrentConfigAnnotation] != target || n.Annotations[insights.MCDStateAnnotation] != insights.MCDStateDone {
				return false
			}
		}
		return true
	}
	return true // no such pool
}

// stepPool moves each node that is updating one phase on, and starts the next
// outdated node while fewer than maxUnavailable are updating.
func (c *Cluster) stepPool(ctx context.Context, s *snapshot, p *mcfgv1.MachineConfigPool, now time.Time) ([]string, error) {
	target := p.Spec.Configuration.Name
	if target != RenderedConfig(p.Name, s.target) || p.Spec.Paused {
		return nil, nil // not rolling yet, or paused
	}
	nodes, err := poolNodes(s, p)
	if err != nil {
		return nil, err
	}
	var actions []string
	busy := 0
	for _, n := range nodes {
		if n.Annotations[insights.CurrentConfigAnnotation] == target && n.Annotations[insights.MCDStateAnnotation] == insights.MCDStateDone {
			continue
		}
		if n.Annotations[insights.DesiredConfigAnnotation] != target {
			continue // outdated, not started
		}
		busy++
		a, err := c.advanceNode(ctx, n.Name, target, now)
		if err != nil {
			return nil, err
		}
		if a != "" {
			actions = append(actions, a)
		}
	}
	maxUnavailable := 1
	if p.Spec.MaxUnavailable != nil && p.Spec.MaxUnavailable.IntValue() > 0 {
		maxUnavailable = p.Spec.MaxUnavailable.IntValue()
	}
	for _, n := range nodes {
		if busy >= maxUnavailable {
			break
		}
		if n.Annotations[insights.DesiredConfigAnnotation] == target || n.Annotations[insights.CurrentConfigAnnotation] == target {
			continue
		}
		busy++
		err := c.mutateNode(ctx, n.Name, func(n *corev1.Node) {
			n.Annotations[insights.DesiredConfigAnnotation] = target
			n.Annotations[insights.MCDStateAnnotation] = insights.MCDStateWorking
			n.Annotations[insights.DesiredDrainAnnotation] = "drain-" + target
			n.Spec.Unschedulable = true
		}, nil)
		if err != nil {
			return nil, err
		}
		actions = append(actions, "node "+n.Name+" starts updating (cordoned, draining)")
	}
	if len(actions) > 0 {
		if err := c.updatePoolStatus(ctx, p.Name, target, now); err != nil {
			return nil, err
		}
	}
	return actions, nil
}

// advanceNode moves one updating node a phase on: drained, rebooting, done.
// A node in any other state (Degraded: a blocked drain) is left alone.
func (c *Cluster) advanceNode(ctx context.Context, name, target string, now time.Time) (string, error) {
	var action string
	err := c.mutateNode(ctx, name, func(n *corev1.Node) {
		action = ""
		a := n.Annotations
		switch a[insights.MCDStateAnnotation] {
		case insights.MCDStateWorking:
			if a[insights.LastAppliedDrainAnnotation] != a[insights.DesiredDrainAnnotation] {
				a[insights.LastAppliedDrainAnnotation] = a[insights.DesiredDrainAnnotation]
				action = "node " + n.Name + " drained"
				return
			}
			a[insights.MCDStateAnnotation] = insights.MCDStateRebooting
			action = "node " + n.Name + " rebooting"
		case insights.MCDStateRebooting:
			a[insights.CurrentConfigAnnotation] = target
			a[insights.MCDStateAnnotation] = insights.MCDStateDone
			a[insights.MCDReasonAnnotation] = ""
			a[insights.DesiredDrainAnnotation] = "uncordon-" + target
			a[insights.LastAppliedDrainAnnotation] = "uncordon-" + target
			n.Spec.Unschedulable = false
			action = "node " + n.Name + " updated"
		}
	}, func(n *corev1.Node) bool {
		switch n.Annotations[insights.MCDStateAnnotation] {
		case insights.MCDStateRebooting:
			ocp.SetNodeCondition(&n.Status.Conditions, corev1.NodeReady, corev1.ConditionFalse,
				"KubeletNotReady", "node is rebooting", now)
			return true
		case insights.MCDStateDone:
			ocp.SetNodeCondition(&n.Status.Conditions, corev1.NodeReady, corev1.ConditionTrue,
				"KubeletReady", "kubelet is posting ready status", now)
			return true
		}
		return false
	})
	return action, err
}

// mutateNode updates a Node's metadata and spec with meta, then its status
// with status when that returns true.
func (c *Cluster) mutateNode(ctx context.Context, name string, meta func(*corev1.Node), status func(*corev1.Node) bool) error {
	nodes := c.Kube.CoreV1().Nodes()
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := nodes.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if n.Annotations == nil {
			n.Annotations = map[string]string{}
		}
		if meta != nil {
			meta(n)
			if n, err = nodes.Update(ctx, n, metav1.UpdateOptions{FieldManager: fieldManager}); err != nil {
				return err
			}
		}
		if status != nil && status(n) {
			_, err = nodes.UpdateStatus(ctx, n, metav1.UpdateOptions{FieldManager: fieldManager})
		}
		return err
	})
}

// updatePoolStatus recomputes a pool's machine counts and conditions from its
// nodes, as the machine-config controller reports them.
func (c *Cluster) updatePoolStatus(ctx context.Context, pool, target string, now time.Time) error {
	s, err := c.read(ctx)
	if err != nil {
		return err
	}
	return Mutate(ctx, c.dyn(), MachineConfigPools, pool, true, func(p *mcfgv1.MachineConfigPool) bool {
		nodes, err := poolNodes(s, p)
		if err != nil {
			return false
		}
		var updated, ready, unavailable, degraded int32
		for _, n := range nodes {
			state := n.Annotations[insights.MCDStateAnnotation]
			done := n.Annotations[insights.CurrentConfigAnnotation] == target && state == insights.MCDStateDone
			if done {
				updated++
			}
			if state == "Degraded" || state == "Unreconcilable" {
				degraded++
			}
			if done || n.Annotations[insights.DesiredConfigAnnotation] != target {
				ready++
			} else {
				unavailable++
			}
		}
		p.Status.MachineCount = int32(len(nodes))
		p.Status.UpdatedMachineCount, p.Status.ReadyMachineCount = updated, ready
		p.Status.UnavailableMachineCount, p.Status.DegradedMachineCount = unavailable, degraded
		allUpdated := updated == int32(len(nodes))
		if allUpdated {
			p.Status.Configuration.Name = target
		}
		setPoolStatus(&p.Status.Conditions, mcfgv1.MachineConfigPoolUpdated, condStatus(allUpdated), now)
		setPoolStatus(&p.Status.Conditions, mcfgv1.MachineConfigPoolUpdating, condStatus(!allUpdated), now)
		return true
	})
}

// setPoolStatus sets the status of a pool condition, keeping its reason and
// message.
func setPoolStatus(conds *[]mcfgv1.MachineConfigPoolCondition, t mcfgv1.MachineConfigPoolConditionType, status corev1.ConditionStatus, now time.Time) {
	var reason, message string
	if c := ocp.FindPoolCondition(*conds, t); c != nil {
		reason, message = c.Reason, c.Message
	}
	ocp.SetPoolCondition(conds, t, status, reason, message, now)
}

func condStatus(b bool) corev1.ConditionStatus {
	if b {
		return corev1.ConditionTrue
	}
	return corev1.ConditionFalse
}

func (c *Cluster) completeClusterVersion(ctx context.Context, now time.Time) error {
	return Mutate(ctx, c.dyn(), ClusterVersions, insights.ClusterVersionName, true, func(cv *configv1.ClusterVersion) bool {
		h := &cv.Status.History[0]
		t := metav1.NewTime(now)
		h.State, h.CompletionTime = configv1.CompletedUpdate, &t
		ocp.SetClusterCondition(&cv.Status.Conditions, configv1.OperatorProgressing, configv1.ConditionFalse,
			"", "Cluster version is "+h.Version, now)
		ocp.SetClusterCondition(&cv.Status.Conditions, configv1.OperatorAvailable, configv1.ConditionTrue,
			"Done", "Done applying "+h.Version, now)
		return true
	})
}

// StartUpdate begins an update to version, as `oc adm upgrade --to` and the
// cluster-version operator would: desiredUpdate, a new Partial history entry
// and Progressing=True.
func (c *Cluster) StartUpdate(ctx context.Context, version string) error {
	now := c.Clock.Now()
	release := configv1.Release{Version: version, Image: ReleaseImage(version)}
	err := Mutate(ctx, c.dyn(), ClusterVersions, insights.ClusterVersionName, false, func(cv *configv1.ClusterVersion) bool {
		cv.Spec.DesiredUpdate = &configv1.Update{Version: version, Image: release.Image}
		return true
	})
	if err != nil {
		return err
	}
	return Mutate(ctx, c.dyn(), ClusterVersions, insights.ClusterVersionName, true, func(cv *configv1.ClusterVersion) bool {
		cv.Status.Desired = release
		cv.Status.ObservedGeneration = cv.Generation
		cv.Status.History = append([]configv1.UpdateHistory{{
			State: configv1.PartialUpdate, StartedTime: metav1.NewTime(now), Version: version, Image: release.Image, Verified: true,
		}}, cv.Status.History...)
		ocp.SetClusterCondition(&cv.Status.Conditions, configv1.OperatorProgressing, configv1.ConditionTrue,
			"", "Working towards "+version, now)
		return true
	})
}

// CurrentVersion returns the target version of the ClusterVersion.
func (c *Cluster) CurrentVersion(ctx context.Context) (string, error) {
	cv, err := Get[configv1.ClusterVersion](ctx, c.dyn(), ClusterVersions, insights.ClusterVersionName)
	if err != nil {
		return "", err
	}
	return cv.Status.Desired.Version, nil
}

// Drive calls Step every interval until the update is done (loop false) or
// until ctx ends (loop true: pause steps after each completed update, then
// update to the next version). Errors of single steps are logged and retried.
func (c *Cluster) Drive(ctx context.Context, interval time.Duration, loop bool, pause int) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	idle := 0
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		p, err := c.Step(ctx)
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return ctx.Err()
			}
			klog.ErrorS(err, "Example cluster step failed; retrying")
		case p.Action != "":
			klog.InfoS("Example cluster", "step", p.Action)
		case p.Done && !loop:
			return nil
		case p.Done:
			if idle++; idle < pause {
				continue
			}
			idle = 0
			if err := c.startNext(ctx); err != nil {
				klog.ErrorS(err, "Cannot start the next update")
			}
		}
	}
}

func (c *Cluster) startNext(ctx context.Context) error {
	cur, err := c.CurrentVersion(ctx)
	if err != nil {
		return err
	}
	next, err := NextVersion(cur)
	if err != nil {
		return err
	}
	klog.InfoS("Example cluster starts a new update", "from", cur, "to", next)
	return c.StartUpdate(ctx, next)
}
