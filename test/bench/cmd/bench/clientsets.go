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
	"errors"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
)

// clientsets are the clients a cell works a control plane with: the
// kube-apiserver's typed API, the update APIs and the dynamic client. They
// have no client-side rate limit: the cell sets the pace.
type clientsets struct {
	kube    kubernetes.Interface
	updates versioned.Interface
	dynamic dynamic.Interface
}

// unlimited returns a copy of cfg without the client-side rate limit.
func unlimited(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = -1, 0
	return cfg
}

// newClientsets returns the clientsets on a copy of cfg.
func newClientsets(cfg *rest.Config) (*clientsets, error) {
	cfg = unlimited(cfg)
	var c clientsets
	var errs [3]error
	c.kube, errs[0] = kubernetes.NewForConfig(cfg)
	c.updates, errs[1] = versioned.NewForConfig(cfg)
	c.dynamic, errs[2] = dynamic.NewForConfig(cfg)
	if err := errors.Join(errs[:]...); err != nil {
		return nil, err
	}
	return &c, nil
}
