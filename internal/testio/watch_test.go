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

package testio

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	kubefake "k8s.io/client-go/kubernetes/fake"
)

func TestOnWatchSeesTheWatchAndServesItFromTheTracker(t *testing.T) {
	client := kubefake.NewClientset()
	var opened []watch.Interface
	OnWatch(client, "configmaps", func(w watch.Interface) { opened = append(opened, w) })
	w, err := client.CoreV1().ConfigMaps("ns").Watch(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if len(opened) != 1 || opened[0] != w {
		t.Fatalf("opened was called with %v, want the one watch %v", opened, w)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}}
	if _, err := client.CoreV1().ConfigMaps("ns").Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-w.ResultChan():
		if got, ok := ev.Object.(*corev1.ConfigMap); ev.Type != watch.Added || !ok || got.Name != "a" {
			t.Errorf("got %s %v, want ADDED configmap a", ev.Type, ev.Object)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the tracker's event did not reach the watch")
	}
}
