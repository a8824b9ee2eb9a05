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

package ocp

import (
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"k8s.io/apimachinery/pkg/util/version"
)

// Image repositories of OpenShift releases and of their component images.
const (
	releaseRepository   = "quay.io/openshift-release-dev/ocp-release"
	componentRepository = "quay.io/openshift-release-dev/ocp-v4.0-art-dev"
)

// Digest returns a stable sha256 digest for the given parts.
func Digest(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ReleaseImage is the pull spec of the release payload of v.
func ReleaseImage(v string) string {
	return releaseRepository + "@sha256:" + Digest("release", v)
}

// ComponentImage is the pull spec of a component image of release v.
func ComponentImage(component, v string) string {
	return componentRepository + "@sha256:" + Digest(component, v)
}

// MCOImage is the machine-config-operator image of release v.
func MCOImage(v string) string { return ComponentImage("machine-config-operator", v) }

// RenderedName is the name of the rendered MachineConfig of a pool for release
// v: rendered-<pool>-<32 hex digits>, like the machine-config controller's
// content hash.
func RenderedName(pool, v string, seed int64) string {
	sum := md5.Sum([]byte(fmt.Sprintf("%s/%s/%d", pool, v, seed)))
	return "rendered-" + pool + "-" + hex.EncodeToString(sum[:])
}

// errataURL is a plausible errata link for release v.
func errataURL(v string) string {
	sum := sha256.Sum256([]byte(v))
	return fmt.Sprintf("https://access.redhat.com/errata/RHBA-2025:%05d", int(sum[0])<<8|int(sum[1]))
}

// KubeVersion is the Kubernetes version shipped with OpenShift release v
// (OpenShift 4.N ships Kubernetes 1.(N+13)).
func KubeVersion(v string) string {
	sv, err := version.ParseSemantic(v)
	if err != nil || sv.Major() != 4 {
		return "1.33.5"
	}
	return fmt.Sprintf("1.%d.%d", sv.Minor()+13, 3+sv.Patch()%7)
}

// rhcosVersion is the CoreOS build shipped with release v, as shown in a
// node's osImage.
func rhcosVersion(v string) string {
	sv, err := version.ParseSemantic(v)
	if err != nil {
		return "Red Hat Enterprise Linux CoreOS 9.6.20250811-0 (Plow)"
	}
	return fmt.Sprintf("Red Hat Enterprise Linux CoreOS 9.6.2025%02d%02d-0 (Plow)", 1+int(sv.Minor())%12, 1+int(sv.Patch())%28)
}

// channel is the update channel of release v.
func channel(v string) string {
	sv, err := version.ParseSemantic(v)
	if err != nil {
		return "stable-4.20"
	}
	return fmt.Sprintf("stable-%d.%d", sv.Major(), sv.Minor())
}
