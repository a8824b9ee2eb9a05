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

// Package cputime reads the CPU time of the process, for benchmarks that
// report work in CPU time: on a busy machine it is far steadier than the
// wall clock.
package cputime

import "time"

// Now returns the CPU time the process has used so far, all threads
// included (so garbage collection counts too); 0 where it is unknown.
func Now() time.Duration { return now() }
