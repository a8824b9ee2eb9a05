package updatestatus

import (
	"strconv"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/view"
	"github.com/update-status/apiserver/pkg/view/viewtest"
)

var t0 = time.Date(2025, 3, 12, 10, 0, 0, 0, time.UTC)

// revision returns a synced view revision at rv whose target version is
// target.
func viewRevision(rv uint64, target string) *view.Revision {
	status := viewtest.Synthetic(3, 1)
	status.ControlPlane.Informers[0].Insights[0].Insight.ClusterVersionStatusInsight.Versions.Target.Version = target
	return revisionOf(rv, status)
}

// revisionOf wraps a v1alpha1 status into a synced view revision at rv.
func revisionOf(rv uint64, status v1alpha1.UpdateStatusStatus) *view.Revision {
	obj := &update.UpdateStatus{ObjectMeta: metav1.ObjectMeta{Name: "cluster", ResourceVersion: strconv.FormatUint(rv, 10)}}
	if err := v1alpha1.Convert_v1alpha1_UpdateStatusStatus_To_update_UpdateStatusStatus(&status, &obj.Status, nil); err != nil {
		panic(err)
	}
	obj.Status.Conditions = []metav1.Condition{{Type: "Available", Status: metav1.ConditionTrue, Reason: "AsExpected", LastTransitionTime: metav1.NewTime(t0)}}
	return &view.Revision{ResourceVersion: rv, Object: obj, Synced: true, Size: 1000}
}

// newTestHub returns a hub on a fake clock.
func newTestHub(t testing.TB, cfg HubConfig) (*Hub, *clocktesting.FakeClock) {
	t.Helper()
	clk := clocktesting.NewFakeClock(t0)
	cfg.Clock = clk
	h, err := NewHub(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Shutdown)
	return h, clk
}

// received is a watch event reduced to what tests compare.
type received struct {
	Type            watch.EventType
	ResourceVersion string
	Target          string
	InitialEnd      bool
	Code            int32
}

func describe(ev watch.Event) received {
	r := received{Type: ev.Type}
	switch obj := unwrap(ev.Object).(type) {
	case *update.UpdateStatus:
		r.ResourceVersion = obj.ResourceVersion
		r.InitialEnd = obj.Annotations[metav1.InitialEventsAnnotationKey] == "true"
		if cp := obj.Status.ControlPlane; cp != nil {
			r.Target = cp.Informers[0].Insights[0].Insight.ClusterVersionStatusInsight.Versions.Target.Version
		}
	case *metav1.Status:
		r.Code = obj.Code
	}
	return r
}

// drain returns the events queued on w without blocking; closed reports
// whether the stream ended.
func drain(w watch.Interface) (events []received, closed bool) {
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				return events, true
			}
			events = append(events, describe(ev))
		default:
			return events, false
		}
	}
}

func ptrBool(b bool) *bool { return &b }
