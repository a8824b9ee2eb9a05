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

// Package sourcefiles loads the engine's source objects from files: object
// dumps such as `oc get -o yaml` writes them, the fixtures of
// `oc adm upgrade status`, or a must-gather tree.
//
// Every file under the directory whose name ends in .yaml, .yml or .json is
// read (recursively). A file may hold several YAML documents; a document may
// be JSON. A document is a single object, a `v1 List`, or a typed list such
// as ClusterOperatorList. ClusterVersions, ClusterOperators,
// MachineConfigPools, MachineConfigs, Nodes and the
// machine-config-operator Deployment are kept, as insights.SourcesBuilder
// keeps them; other kinds are ignored. A document without a kind that has
// data.alerts is a Prometheus /api/v1/alerts answer.
package sourcefiles

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/update-status/apiserver/pkg/insights"
)

// Load reads every YAML or JSON file under dir and returns the sources they
// hold. Objects are deduplicated by kind, namespace and name (the first one
// in file-name order wins). An unreadable or unparsable file is an error
// that names the file.
func Load(dir string) (*insights.Sources, error) {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("reading %s: %w", path, err)
		}
		if d.IsDir() {
			return nil
		}
		switch strings.ToLower(filepath.Ext(path)) {
		case ".yaml", ".yml", ".json":
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	return LoadFiles(files...)
}

// LoadBytes reads the sources from the contents of one file.
func LoadBytes(data []byte) (*insights.Sources, error) {
	l := newLoader()
	if err := l.file(data); err != nil {
		return nil, err
	}
	return l.sources(), nil
}

type loader struct {
	b    insights.SourcesBuilder
	seen map[string]bool
	// err is the first decoding error of a known kind.
	err error
}

func newLoader() *loader {
	return &loader{seen: map[string]bool{}}
}

func (l *loader) sources() *insights.Sources {
	return l.b.Build()
}

// file decodes every document of one file.
func (l *loader) file(data []byte) error {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for i := 0; ; i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("document %d: %w", i+1, err)
		}
		if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
			continue
		}
		if err := l.document(raw); err != nil {
			return fmt.Errorf("document %d: %w", i+1, err)
		}
	}
}

// header is the part of a document that says what it is.
type header struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	Items []json.RawMessage `json:"items"`
	// Data is looked at only to tell an alerts answer; insights.ParseAlerts
	// parses it.
	Data *struct {
		Alerts json.RawMessage `json:"alerts"`
	} `json:"data"`
}

func (l *loader) document(raw json.RawMessage) error {
	if len(raw) == 0 || raw[0] != '{' {
		return nil // a scalar or an array: not an object dump
	}
	var h header
	if err := json.Unmarshal(raw, &h); err != nil {
		return err
	}
	if h.Kind == "" {
		if h.Data == nil || h.Data.Alerts == nil || string(h.Data.Alerts) == "null" {
			return nil // not an alerts answer
		}
		alerts, err := insights.ParseAlerts(raw)
		if err != nil {
			return fmt.Errorf("alerts: %w", err)
		}
		l.b.AddAlerts(alerts...)
		return nil
	}
	if strings.HasSuffix(h.Kind, "List") {
		for i, item := range h.Items {
			if err := l.document(item); err != nil {
				return fmt.Errorf("item %d: %w", i, err)
			}
		}
		return nil
	}
	group := h.APIVersion
	if i := strings.LastIndex(group, "/"); i >= 0 {
		group = group[:i]
	} else {
		group = ""
	}
	key := group + "/" + h.Kind + "/" + h.Metadata.Namespace + "/" + h.Metadata.Name
	switch {
	case group == configv1.GroupName && h.Kind == "ClusterVersion":
		var o configv1.ClusterVersion
		if l.decode(key, raw, &o) {
			l.b.Add(&o)
		}
	case group == configv1.GroupName && h.Kind == "ClusterOperator":
		var o configv1.ClusterOperator
		if l.decode(key, raw, &o) {
			l.b.Add(&o)
		}
	case group == mcfgv1.GroupName && h.Kind == "MachineConfigPool":
		var o mcfgv1.MachineConfigPool
		if l.decode(key, raw, &o) {
			l.b.Add(&o)
		}
	case group == mcfgv1.GroupName && h.Kind == "MachineConfig":
		var o struct {
			Metadata struct {
				Name        string            `json:"name"`
				Annotations map[string]string `json:"annotations"`
			} `json:"metadata"`
		}
		if l.decode(key, raw, &o) {
			l.b.AddMachineConfig(o.Metadata.Name, o.Metadata.Annotations)
		}
	case group == "" && h.Kind == "Node":
		var o corev1.Node
		if l.decode(key, raw, &o) {
			l.b.Add(&o)
		}
	case group == appsv1.GroupName && h.Kind == "Deployment" &&
		h.Metadata.Namespace == insights.MCONamespace && h.Metadata.Name == insights.MCODeploymentName:
		var o appsv1.Deployment
		if l.decode(key, raw, &o) {
			l.b.Add(&o)
		}
	}
	return l.err
}

// decode unmarshals raw into out unless an object with the same key was
// loaded before; it reports whether out should be kept.
func (l *loader) decode(key string, raw json.RawMessage, out any) bool {
	if l.seen[key] {
		return false
	}
	if err := json.Unmarshal(raw, out); err != nil {
		l.err = fmt.Errorf("%s: %w", strings.TrimPrefix(key, "/"), err)
		return false
	}
	l.seen[key] = true
	return true
}

// LoadFiles reads the sources held by the given files, in the given order.
func LoadFiles(paths ...string) (*insights.Sources, error) {
	l := newLoader()
	for _, f := range paths {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", f, err)
		}
		if err := l.file(data); err != nil {
			return nil, fmt.Errorf("reading %s: %w", f, err)
		}
	}
	return l.sources(), nil
}

// LoadScenario reads the files of one `oc adm upgrade status` example in
// dir: NAME-cv.yaml, NAME-co.yaml, NAME-mcp.yaml, NAME-mc.yaml,
// NAME-node.yaml and, when present, NAME-mco-deployment.yaml and
// NAME-alerts.json.
func LoadScenario(dir, name string) (*insights.Sources, error) {
	matches, err := filepath.Glob(filepath.Join(dir, name+"-*"))
	if err != nil {
		return nil, err
	}
	var files []string
	for _, m := range matches {
		switch strings.TrimPrefix(filepath.Base(m), name+"-") {
		case "cv.yaml", "co.yaml", "mcp.yaml", "mc.yaml", "node.yaml", "mco-deployment.yaml", "alerts.json":
			files = append(files, m)
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no files of scenario %s in %s", name, dir)
	}
	sort.Strings(files)
	return LoadFiles(files...)
}

// MockNow is the instant `oc adm upgrade status --mock-clusterversion` judges
// a snapshot at: the latest lastTransitionTime among the conditions of the
// ClusterVersion and of all ClusterOperators, plus 368975 ns (oc adds them
// to exercise rounding). It is zero when no condition has a time.
func MockNow(src *insights.Sources) time.Time {
	var latest time.Time
	if cv := src.ClusterVersion; cv != nil {
		for _, c := range cv.Status.Conditions {
			if c.LastTransitionTime.After(latest) {
				latest = c.LastTransitionTime.Time
			}
		}
	}
	for _, co := range src.ClusterOperators {
		if co == nil {
			continue
		}
		for _, c := range co.Status.Conditions {
			if c.LastTransitionTime.After(latest) {
				latest = c.LastTransitionTime.Time
			}
		}
	}
	if latest.IsZero() {
		return latest
	}
	return latest.Add(368975 * time.Nanosecond)
}

// PoolOrder names the MachineConfigPools of src in the order the files list
// them, the order in which `oc adm upgrade status --mock-clusterversion`
// reports pools (report.RenderInPoolOrder).
func PoolOrder(src *insights.Sources) []string {
	names := make([]string, 0, len(src.MachineConfigPools))
	for _, p := range src.MachineConfigPools {
		if p != nil {
			names = append(names, p.Name)
		}
	}
	return names
}
