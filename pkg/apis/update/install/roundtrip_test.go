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

package install

import (
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	"k8s.io/apimachinery/pkg/api/apitesting/roundtrip"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	runtimeserializer "k8s.io/apimachinery/pkg/runtime/serializer"
	"sigs.k8s.io/randfill"

	"github.com/update-status/apiserver/internal/apitypes"
	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// kinds are the kinds of the API, lists included, and structTypes the names
// of its struct types (docs/api.md), both derived from the scheme.
var (
	apiScheme = func() *runtime.Scheme {
		s := runtime.NewScheme()
		Install(s)
		return s
	}()
	kinds       = apitypes.Kinds(apiScheme, v1alpha1.SchemeGroupVersion, &v1alpha1.UpdateStatus{})
	structTypes = func() []string {
		var names []string
		for _, t := range apitypes.Structs(apiScheme, v1alpha1.SchemeGroupVersion, &v1alpha1.UpdateStatus{}) {
			names = append(names, t.Name())
		}
		return names
	}()
)

// fuzzerFuncs make the fuzzed objects look like objects the server could
// produce: condition statuses from their enum, durations in a sane range,
// and unions with exactly the member their type names.
var fuzzerFuncs = fuzzer.MergeFuzzerFuncs(valueFuzzerFuncs, unionFuzzerFuncs)

func valueFuzzerFuncs(_ runtimeserializer.CodecFactory) []interface{} {
	return []interface{}{
		func(c *metav1.Condition, f randfill.Continue) {
			f.FillNoCustom(c)
			c.Status = []metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown}[f.Intn(3)]
			c.ObservedGeneration = f.Int63n(1000)
		},
		func(d *metav1.Duration, f randfill.Continue) {
			d.Duration = time.Duration(f.Int63n(int64(48 * time.Hour)))
		},
	}
}

func unionFuzzerFuncs(_ runtimeserializer.CodecFactory) []interface{} {
	return []interface{}{
		func(u *update.ControlPlaneInsightUnion, f randfill.Continue) {
			fillUnion(u, f, f.Intn(5))
		},
		// A worker pool's union has the members of the control plane's but
		// the ClusterVersion and ClusterOperators (members 0 and 1).
		func(u *update.WorkerPoolInsightUnion, f randfill.Continue) {
			var cp update.ControlPlaneInsightUnion
			fillUnion(&cp, f, 2+f.Intn(3))
			*u = update.WorkerPoolInsightUnion{Type: cp.Type, MachineConfigPoolStatusInsight: cp.MachineConfigPoolStatusInsight,
				NodeStatusInsight: cp.NodeStatusInsight, HealthInsight: cp.HealthInsight}
		},
	}
}

// unionMembers are the members of an insight union: the type naming each
// and its field.
var unionMembers = []struct {
	typ   v1alpha1.InsightType
	field string
}{
	{v1alpha1.ClusterVersionStatusInsightType, "ClusterVersionStatusInsight"},
	{v1alpha1.ClusterOperatorStatusInsightType, "ClusterOperatorStatusInsight"},
	{v1alpha1.MachineConfigPoolStatusInsightType, "MachineConfigPoolStatusInsight"},
	{v1alpha1.NodeStatusInsightType, "NodeStatusInsight"},
	{v1alpha1.HealthInsightType, "HealthInsight"},
}

// fillUnion sets u to its member i alone (0 ClusterVersion, 1
// ClusterOperator, 2 MachineConfigPool, 3 Node, else Health), filled by f,
// and the type naming it.
func fillUnion(u *update.ControlPlaneInsightUnion, f randfill.Continue, i int) {
	m := unionMembers[min(i, len(unionMembers)-1)]
	*u = update.ControlPlaneInsightUnion{Type: update.InsightType(m.typ)}
	member := reflect.ValueOf(u).Elem().FieldByName(m.field)
	member.Set(reflect.New(member.Type().Elem()))
	f.Fill(member.Interface())
}

// TestRoundTrip fuzzes every kind of the group: internal -> v1alpha1 -> JSON
// -> v1alpha1 -> internal must lose nothing. Protobuf is not generated.
func TestRoundTrip(t *testing.T) {
	roundtrip.RoundTripTestForAPIGroup(t, Install, fuzzerFuncs)
}

// TestRoundTripEveryField round-trips objects in which every pointer is set
// and every list has an element, so that every nested type and field is
// exercised, including union members the union fuzzer above never combines.
func TestRoundTripEveryField(t *testing.T) {
	scheme := runtime.NewScheme()
	Install(scheme)
	codecs := runtimeserializer.NewCodecFactory(scheme)
	filler := fuzzer.FuzzerFor(fuzzer.MergeFuzzerFuncs(metafuzzer.Funcs, valueFuzzerFuncs), rand.NewSource(rand.Int63()), codecs).
		NilChance(0).NumElements(1, 2)

	for _, kind := range kinds {
		for _, gv := range []schema.GroupVersion{update.SchemeGroupVersion, v1alpha1.SchemeGroupVersion} {
			gvk := gv.WithKind(kind)
			t.Run(gvk.String(), func(t *testing.T) {
				roundtrip.RoundTripSpecificKindWithoutProtobuf(t, gvk, scheme, codecs, filler, nil)
			})
		}
	}

	// The filler must really reach every struct type of both packages.
	for _, gv := range []schema.GroupVersion{update.SchemeGroupVersion, v1alpha1.SchemeGroupVersion} {
		reached := map[string]bool{}
		var pkg string
		for _, kind := range kinds {
			if !strings.HasSuffix(kind, "List") {
				continue
			}
			obj, err := scheme.New(gv.WithKind(kind))
			if err != nil {
				t.Fatal(err)
			}
			filler.Fill(obj)
			pkg = reflect.TypeOf(obj).Elem().PkgPath()
			collectStructTypes(reflect.ValueOf(obj), pkg, reached)
		}
		for _, name := range structTypes {
			if !reached[name] {
				t.Errorf("%s.%s is not reached by the fuzzer", pkg, name)
			}
		}
	}
}

// TestSchemeKnowsEveryKind checks the registration: both versions know both
// kinds and v1alpha1 is the preferred version.
func TestSchemeKnowsEveryKind(t *testing.T) {
	scheme := runtime.NewScheme()
	Install(scheme)
	for _, gv := range []schema.GroupVersion{update.SchemeGroupVersion, v1alpha1.SchemeGroupVersion} {
		for _, kind := range kinds {
			if !scheme.Recognizes(gv.WithKind(kind)) {
				t.Errorf("scheme does not recognize %v", gv.WithKind(kind))
			}
		}
	}
	if got := scheme.PrioritizedVersionsForGroup(update.GroupName); !slices.Equal(got, []schema.GroupVersion{v1alpha1.SchemeGroupVersion}) {
		t.Errorf("prioritized versions = %v, want [%v]", got, v1alpha1.SchemeGroupVersion)
	}
}

// collectStructTypes records the names of the struct types of package pkg
// found in the non-nil parts of v.
func collectStructTypes(v reflect.Value, pkg string, seen map[string]bool) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			collectStructTypes(v.Elem(), pkg, seen)
		}
	case reflect.Slice:
		for i := range v.Len() {
			collectStructTypes(v.Index(i), pkg, seen)
		}
	case reflect.Struct:
		if v.Type().PkgPath() == pkg {
			seen[v.Type().Name()] = true
		}
		for i := range v.NumField() {
			collectStructTypes(v.Field(i), pkg, seen)
		}
	}
}
