package app

import (
	"context"
	"fmt"
	"io"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/apis/update/validation"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
	"github.com/update-status/apiserver/pkg/report"
)

// newClient builds the generated clientset from a kubeconfig file.
func newClient(kubeconfig string) (versioned.Interface, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", kubeconfig, err)
	}
	cfg.UserAgent = "update-status"
	return versioned.NewForConfig(cfg)
}

// served prints reports of the UpdateStatus a cluster serves.
type served struct {
	client  versioned.Interface
	out     io.Writer
	clock   clock.PassiveClock
	details report.Details
	// printed counts the reports written, to separate them.
	printed int
}

func (s *served) render(obj *v1alpha1.UpdateStatus) error {
	if s.printed > 0 {
		if _, err := fmt.Fprintln(s.out); err != nil {
			return err
		}
	}
	s.printed++
	return report.Render(s.out, obj, s.clock.Now(), s.details)
}

func (s *served) get(ctx context.Context) (*v1alpha1.UpdateStatus, error) {
	obj, err := s.client.UpdateV1alpha1().UpdateStatuses().Get(ctx, validation.ObjectName, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("reading updatestatuses/%s: %w", validation.ObjectName, err)
	}
	return obj, nil
}

// once prints the report of the object as served now.
func (s *served) once(ctx context.Context) error {
	obj, err := s.get(ctx)
	if err != nil {
		return err
	}
	return s.render(obj)
}

// watch prints the report, then again on every watch event that changes
// the object, until ctx ends. A watch that closes is resumed from the last
// resourceVersion; an expired one starts over from a fresh read.
func (s *served) watch(ctx context.Context) error {
	obj, err := s.get(ctx)
	if err != nil {
		return err
	}
	if err := s.render(obj); err != nil {
		return err
	}
	rv := obj.ResourceVersion
	for ctx.Err() == nil {
		w, err := s.client.UpdateV1alpha1().UpdateStatuses().Watch(ctx, metav1.ListOptions{
			FieldSelector:   fields.OneTermEqualSelector("metadata.name", validation.ObjectName).String(),
			ResourceVersion: rv,
		})
		if err != nil {
			klog.ErrorS(err, "Watching the UpdateStatus failed, retrying", "resourceVersion", rv)
			if !sleep(ctx, time.Second) {
				break
			}
			continue
		}
		rv, err = s.drain(ctx, w, rv)
		w.Stop()
		if err != nil {
			return err
		}
	}
	return nil
}

// drain renders every event of one watch and returns the resourceVersion
// to resume from.
func (s *served) drain(ctx context.Context, w watch.Interface, rv string) (string, error) {
	for {
		select {
		case <-ctx.Done():
			return rv, nil
		case ev, ok := <-w.ResultChan():
			if !ok {
				return rv, nil
			}
			switch ev.Type {
			case watch.Added, watch.Modified:
				obj, isStatus := ev.Object.(*v1alpha1.UpdateStatus)
				if !isStatus || (rv != "" && obj.ResourceVersion == rv) {
					continue // not ours, or the version already shown
				}
				rv = obj.ResourceVersion
				if err := s.render(obj); err != nil {
					return rv, err
				}
			case watch.Deleted:
				_, _ = fmt.Fprintf(s.out, "\nupdatestatuses/%s was deleted\n", validation.ObjectName)
			case watch.Error:
				err := apierrors.FromObject(ev.Object)
				if apierrors.IsGone(err) || apierrors.IsResourceExpired(err) {
					obj, gerr := s.get(ctx)
					if gerr != nil {
						return rv, gerr
					}
					rv = obj.ResourceVersion
					if err := s.render(obj); err != nil {
						return rv, err
					}
					return rv, nil
				}
				klog.ErrorS(err, "The UpdateStatus watch reported an error", "resourceVersion", rv)
				return rv, nil
			}
		}
	}
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
