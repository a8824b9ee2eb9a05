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

package hypershift

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/utils/ptr"
)

// The OpenAPI schemas of the newer fields, as upstream's CRDs declare them
// (see each type's source); hack/hostedcrds adds them to the module's CRDs.

// ControlPlaneVersionSchema is the schema of ControlPlaneVersionStatus.
// release is the schema of a configv1.Release, taken from the same CRD's
// status.version.desired so that both agree.
func ControlPlaneVersionSchema(release apiextensionsv1.JSONSchemaProps) apiextensionsv1.JSONSchemaProps {
	str := func(desc string, minLen, maxLen int64) apiextensionsv1.JSONSchemaProps {
		return apiextensionsv1.JSONSchemaProps{Type: "string", Description: desc, MinLength: ptr.To(minLen), MaxLength: ptr.To(maxLen)}
	}
	version := str("version is a semantic version string identifying the update version (e.g. \"4.20.1\").", 1, 64)
	version.XValidations = apiextensionsv1.ValidationRules{{
		Rule:    `self.matches('^\\d+\\.\\d+\\.\\d+.*')`,
		Message: "version must start with semantic version prefix x.y.z",
	}}
	release.Description = "desired is the release version that the control plane is reconciling towards."
	history := atomicList("history lists the versions applied to the management-side components, newest first. "+
		"An entry is Completed when every ControlPlaneComponent reports its version with RolloutComplete=True.",
		[]string{"image", "startedTime", "state", "version"},
		map[string]apiextensionsv1.JSONSchemaProps{
			"state": {
				Type:        "string",
				Description: "state is Completed when the update was fully rolled out, Partial otherwise.",
				Enum:        []apiextensionsv1.JSON{{Raw: []byte(`"Completed"`)}, {Raw: []byte(`"Partial"`)}},
			},
			"startedTime":    {Type: "string", Format: "date-time", Description: "startedTime is when the update started."},
			"completionTime": {Type: "string", Format: "date-time", Description: "completionTime is when the update completed; unset while it runs."},
			"version":        version,
			"image":          str("image is the release image pullspec of this update.", 1, 447),
		})
	history.MaxItems = ptr.To[int64](100)
	return apiextensionsv1.JSONSchemaProps{
		Type: "object",
		Description: "controlPlaneVersion tracks the rollout of the management-side control plane components, " +
			"computed from the ControlPlaneComponents rather than the hosted cluster's CVO.",
		Required: []string{"desired"},
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"desired": release,
			"history": history,
			"observedGeneration": {
				Type:        "integer",
				Format:      "int64",
				Description: "observedGeneration reports which generation of the HostedControlPlane spec is being synced.",
				Minimum:     ptr.To[float64](1),
				Maximum:     ptr.To[float64](9007199254740992),
			},
		},
	}
}

// NodesInfoSchema is the schema of NodePoolNodesInfo.
func NodesInfoSchema() apiextensionsv1.JSONSchemaProps {
	count := func(desc string) apiextensionsv1.JSONSchemaProps {
		return apiextensionsv1.JSONSchemaProps{Type: "integer", Format: "int32", Minimum: ptr.To[float64](0), Description: desc}
	}
	return apiextensionsv1.JSONSchemaProps{
		Type:        "object",
		Description: "nodesInfo groups the NodePool's nodes by the versions they run.",
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"nodeVersions": atomicList("nodeVersions counts the nodes of each OCP and kubelet version; Machines without node info are skipped.",
				[]string{"kubeletVersion", "ocpVersion", "readyNodeCount", "unreadyNodeCount"},
				map[string]apiextensionsv1.JSONSchemaProps{
					"ocpVersion":       {Type: "string", Description: "ocpVersion is the OCP release the nodes run."},
					"kubeletVersion":   {Type: "string", Description: "kubeletVersion is the nodes' kubelet version."},
					"readyNodeCount":   count("readyNodeCount counts the nodes whose Machine is NodeHealthy."),
					"unreadyNodeCount": count("unreadyNodeCount counts the other nodes."),
				}),
		},
	}
}

// ComponentObservedGenerationSchema is the schema of ControlPlaneComponent
// status.observedGeneration.
func ComponentObservedGenerationSchema() apiextensionsv1.JSONSchemaProps {
	return apiextensionsv1.JSONSchemaProps{
		Type:        "integer",
		Format:      "int64",
		Minimum:     ptr.To[float64](0),
		Description: "observedGeneration is the generation of the component's spec last reconciled.",
	}
}

// atomicList is the schema of an atomic list, described by desc, of at
// least one object with properties, of which required are required.
func atomicList(desc string, required []string, properties map[string]apiextensionsv1.JSONSchemaProps) apiextensionsv1.JSONSchemaProps {
	return apiextensionsv1.JSONSchemaProps{
		Type:        "array",
		Description: desc,
		MinItems:    ptr.To[int64](1),
		XListType:   ptr.To("atomic"),
		Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{
			Type:       "object",
			Required:   required,
			Properties: properties,
		}},
	}
}
