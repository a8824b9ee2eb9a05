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

package apiserver

import (
	openapinamer "k8s.io/apiserver/pkg/endpoints/openapi"
	genericapiserver "k8s.io/apiserver/pkg/server"
	utilcompatibility "k8s.io/apiserver/pkg/util/compatibility"

	generatedopenapi "github.com/update-status/apiserver/pkg/generated/openapi"
)

// Name is the name of the server: its binary, its user agent and the title
// of its OpenAPI documents.
const Name = "update-status-apiserver"

// NewGenericConfig returns the generic apiserver configuration this server
// starts from: the project's codecs, OpenAPI v2 and v3 from the generated
// definitions, and the effective version of the build. It has no storage
// backend, no admission and no priority-and-fairness (FlowControl is nil, so
// the max-in-flight filter applies); callers add serving, authentication,
// authorization and audit.
func NewGenericConfig() *genericapiserver.Config {
	cfg := genericapiserver.NewConfig(Codecs)

	namer := openapinamer.NewDefinitionNamer(Scheme)
	cfg.OpenAPIConfig = genericapiserver.DefaultOpenAPIConfig(generatedopenapi.GetOpenAPIDefinitions, namer)
	cfg.OpenAPIConfig.Info.Title = Name
	cfg.OpenAPIConfig.Info.Version = "v1alpha1"
	cfg.OpenAPIV3Config = genericapiserver.DefaultOpenAPIV3Config(generatedopenapi.GetOpenAPIDefinitions, namer)
	cfg.OpenAPIV3Config.Info.Title = Name
	cfg.OpenAPIV3Config.Info.Version = "v1alpha1"

	cfg.EffectiveVersion = utilcompatibility.DefaultBuildEffectiveVersion()
	return cfg
}
