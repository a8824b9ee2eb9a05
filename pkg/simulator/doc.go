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

// Package simulator drives a simulated OpenShift cluster through an update, so
// that the insight engine, the API server, the integration tests and the demo
// have a cluster that is updating without an OpenShift cluster.
//
// The simulated cluster is made of the objects the real operators publish: the
// ClusterVersion, about 35 ClusterOperators, MachineConfigPools, rendered
// MachineConfigs, Nodes with the machine-config daemon annotations, and the
// machine-config-operator Deployment. A Simulator plays the cluster-version
// operator, the operators, the machine-config operator, controller and daemons:
//
//   - Create writes the cluster at the starting version.
//   - StartUpdate requests the update; Step performs every transition that is
//     due at the clock's current time and writes the changed objects; Run repeats
//     Step in real time and RunVirtual jumps a fake clock from event to event.
//     StartNextUpdate chains another update once one is Completed, or complete
//     but for paused pools (RunPastPauses returns then). Midway does it all in
//     virtual time and returns the cluster caught part way through.
//   - Inject adds faults (a degraded or unavailable operator, a drain blocked by
//     a PodDisruptionBudget, a paused pool, a node NotReady, a failing
//     ClusterVersion).
//
// Everything is a deterministic function of the Options (seed included), the
// clock readings and the faults; time comes only from the injected clock. The
// objects go to a Sink: NewAPISink writes them through the API like the real
// operators (status through the status subresource), NewFileSink writes each
// state as files for `update-status compute --from-dir`.
package simulator
