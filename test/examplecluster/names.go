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

// Package examplecluster creates the example cluster of artifacts/examples in
// a control plane and moves its update forward one small step at a time, the
// way the cluster-version operator and the machine-config operator would.
// It is a stand-in for pkg/simulator: small, deterministic and stateless (each
// step reads the cluster afresh, so tests may inject faults between steps).
package examplecluster

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// Naming rules shared with artifacts/examples (see its README.md).

// RenderedConfig is the rendered MachineConfig of pool for version.
func RenderedConfig(pool, version string) string {
	return "rendered-" + pool + "-" + digest(pool + "/" + version)[:32]
}

// ReleaseImage is the (made-up) release image pull spec of version.
func ReleaseImage(version string) string {
	return "quay.io/openshift-release-dev/ocp-release@sha256:" + digest("release/"+version)
}

// MCOImage is the (made-up) machine-config-operator image of version.
func MCOImage(version string) string {
	return "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:" + digest("machine-config-operator/"+version)
}

// NextVersion returns version with its last numeric component incremented
// (4.20.1 -> 4.20.2).
func NextVersion(version string) (string, error) {
	i := strings.LastIndexByte(version, '.')
	n, err := strconv.Atoi(version[i+1:])
	if err != nil || i < 0 {
		return "", fmt.Errorf("version %q does not end in a number", version)
	}
	return version[:i+1] + strconv.Itoa(n+1), nil
}

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
