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

package simulator

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"sigs.k8s.io/yaml"
)

// File names of one state, as in testdata/oc-status (without the
// scenario prefix).
const (
	FileClusterVersion     = "cv.yaml"
	FileClusterOperators   = "co.yaml"
	FileMachineConfigPools = "mcp.yaml"
	FileMachineConfigs     = "mc.yaml"
	FileNodes              = "node.yaml"
	FileMCODeployment      = "mco-deployment.yaml"
	// FileStep holds the step's time (RFC 3339, nanoseconds) and phase, one
	// "key: value" per line; it is not an object file.
	FileStep = "step.txt"
)

// FileSink writes every state as files: <dir>/<step>/{cv,co,mcp,mc,node,
// mco-deployment}.yaml, each a v1 List, plus step.txt. Steps are numbered
// with four digits (0000 is the creation). It assigns resource versions, as
// an API server would.
type FileSink struct {
	// JSON makes the sink write indented JSON instead of YAML. JSON is YAML
	// too, so the files read the same, and it is several times faster to
	// write and to read (for long runs and large clusters).
	JSON bool

	dir string
	rv  int64
	// encoded caches each file's last content, so that a step re-encodes
	// only the files whose objects changed.
	encoded map[string][]byte
}

var _ Sink = (*FileSink)(nil)

// NewFileSink returns a sink writing under dir, which it creates.
func NewFileSink(dir string) (*FileSink, error) {
	if dir == "" {
		return nil, fmt.Errorf("simulator: empty output directory")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("simulator: %w", err)
	}
	return &FileSink{dir: dir, encoded: map[string][]byte{}}, nil
}

// StepDir returns the directory of a step.
func (f *FileSink) StepDir(step int) string {
	return filepath.Join(f.dir, fmt.Sprintf("%04d", step))
}

// Write implements Sink. Several batches of one step rewrite the same
// directory; the last one holds the complete state.
func (f *FileSink) Write(ctx context.Context, b *Batch) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	changed := map[string]bool{}
	for _, ch := range b.Changes {
		if m, err := meta.Accessor(ch.Object); err == nil {
			f.rv++
			m.SetResourceVersion(strconv.FormatInt(f.rv, 10))
		}
		changed[fileOf(ch.Object)] = true
	}
	dir := f.StepDir(b.Step)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("simulator: %w", err)
	}
	st := b.State
	files := []struct {
		name  string
		items []runtime.Object
	}{
		{FileClusterVersion, objects(st.ClusterVersion)},
		{FileClusterOperators, objects(st.ClusterOperators...)},
		{FileMachineConfigPools, objects(st.MachineConfigPools...)},
		{FileMachineConfigs, objects(st.MachineConfigs...)},
		{FileNodes, objects(st.Nodes...)},
		{FileMCODeployment, objects(st.MCODeployment)},
	}
	for _, file := range files {
		data, ok := f.encoded[file.name]
		if !ok || changed[file.name] {
			var err error
			if data, err = encodeList(file.items, f.JSON); err != nil {
				return fmt.Errorf("simulator: encode %s: %w", file.name, err)
			}
			f.encoded[file.name] = data
		}
		if err := writeAtomic(filepath.Join(dir, file.name), data); err != nil {
			return err
		}
	}
	info := fmt.Sprintf("time: %s\nphase: %s\n", b.Time.UTC().Format(time.RFC3339Nano), b.Phase)
	return writeAtomic(filepath.Join(dir, FileStep), []byte(info))
}

// objects converts typed pointers to runtime.Objects, dropping nil ones.
func objects[T runtime.Object](in ...T) []runtime.Object {
	var zero T
	out := make([]runtime.Object, 0, len(in))
	for _, o := range in {
		if any(o) == any(zero) {
			continue
		}
		out = append(out, o)
	}
	return out
}

// listFile is a v1 List as kubectl prints it.
type listFile struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Items      []runtime.Object  `json:"items"`
	Metadata   map[string]string `json:"metadata"`
}

// encodeList encodes items as a v1 List in YAML, or in indented JSON.
func encodeList(items []runtime.Object, asJSON bool) ([]byte, error) {
	list := listFile{APIVersion: "v1", Kind: "List", Items: items, Metadata: map[string]string{"resourceVersion": ""}}
	if asJSON {
		return json.MarshalIndent(list, "", "  ")
	}
	raw, err := json.Marshal(list)
	if err != nil {
		return nil, err
	}
	return yaml.JSONToYAML(raw)
}

// fileOf names the file an object is written to ("" for none).
func fileOf(obj runtime.Object) string {
	switch obj.(type) {
	case *configv1.ClusterVersion:
		return FileClusterVersion
	case *configv1.ClusterOperator:
		return FileClusterOperators
	case *mcfgv1.MachineConfigPool:
		return FileMachineConfigPools
	case *mcfgv1.MachineConfig:
		return FileMachineConfigs
	case *corev1.Node:
		return FileNodes
	case *appsv1.Deployment:
		return FileMCODeployment
	default:
		return ""
	}
}

// writeAtomic writes a file through a temporary file and a rename, so that a
// reader never sees half a file.
func writeAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("simulator: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("simulator: %w", err)
	}
	return nil
}

// fileScheme decodes the object files.
var fileScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(corev1.AddToScheme(s))
	utilruntime.Must(appsv1.AddToScheme(s))
	utilruntime.Must(configv1.Install(s))
	utilruntime.Must(mcfgv1.Install(s))
	return s
}()

// ReadStateDir reads one state written by a FileSink (a step directory).
// Missing object files leave their part of the state empty; State.Time and
// State.Phase come from step.txt when present.
func ReadStateDir(dir string) (*State, error) {
	return ReadStateDirWith(dir, DecodeObjects)
}

// ObjectFiles lists the object files of a state, in the order they are read.
var ObjectFiles = []string{FileClusterVersion, FileClusterOperators, FileMachineConfigPools, FileMachineConfigs, FileNodes, FileMCODeployment}

// fileDecoder decodes the object files.
var fileDecoder = serializer.NewCodecFactory(fileScheme).UniversalDeserializer()

// DecodeObjects decodes the content of an object file: a v1 List (or a
// single object) in YAML or JSON.
func DecodeObjects(raw []byte) ([]runtime.Object, error) {
	obj, _, err := fileDecoder.Decode(raw, nil, nil)
	if err != nil {
		return nil, err
	}
	list, ok := obj.(*corev1.List)
	if !ok {
		return []runtime.Object{obj}, nil
	}
	out := make([]runtime.Object, 0, len(list.Items))
	for i, item := range list.Items {
		obj, _, err := fileDecoder.Decode(item.Raw, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("item %d: %w", i, err)
		}
		out = append(out, obj)
	}
	return out, nil
}

// ReadStateDirWith is ReadStateDir with a custom decoder for the object
// files (for example one that caches by content).
func ReadStateDirWith(dir string, decode func([]byte) ([]runtime.Object, error)) (*State, error) {
	st := &State{}
	for _, name := range ObjectFiles {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("simulator: %w", err)
		}
		objs, err := decode(raw)
		if err != nil {
			return nil, fmt.Errorf("simulator: decode %s: %w", name, err)
		}
		for i, obj := range objs {
			switch o := obj.(type) {
			case *configv1.ClusterVersion:
				st.ClusterVersion = o
			case *configv1.ClusterOperator:
				st.ClusterOperators = append(st.ClusterOperators, o)
			case *mcfgv1.MachineConfigPool:
				st.MachineConfigPools = append(st.MachineConfigPools, o)
			case *mcfgv1.MachineConfig:
				st.MachineConfigs = append(st.MachineConfigs, o)
			case *corev1.Node:
				st.Nodes = append(st.Nodes, o)
			case *appsv1.Deployment:
				st.MCODeployment = o
			default:
				return nil, fmt.Errorf("simulator: %s item %d: unexpected %T", name, i, obj)
			}
		}
	}
	raw, err := os.ReadFile(filepath.Join(dir, FileStep))
	if errors.Is(err, os.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return nil, fmt.Errorf("simulator: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), ": ")
		switch {
		case !ok:
			continue
		case key == "time":
			if st.Time, err = time.Parse(time.RFC3339Nano, value); err != nil {
				return nil, fmt.Errorf("simulator: %s: %w", FileStep, err)
			}
		case key == "phase":
			st.Phase = Phase(value)
		}
	}
	return st, nil
}
