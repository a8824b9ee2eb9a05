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

package insights

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// alertsPayload is a Prometheus /api/v1/alerts answer:
// {"status":"success","data":{"alerts":[...]}}. Fields the engine does not
// read (an alert's value, the error type) are not decoded.
type alertsPayload struct {
	Status string `json:"status"`
	Error  string `json:"error"`
	Data   *struct {
		Alerts *[]Alert `json:"alerts"`
	} `json:"data"`
}

// ParseAlerts parses a Prometheus /api/v1/alerts answer, as the Thanos
// querier, Prometheus and `oc adm upgrade status` alert files have it. It is
// the one parser of that payload: the live alert source of the server and the
// file loader both use it.
//
// data must be one JSON object whose data.alerts is a list (possibly empty).
// A status other than "success" is an error carrying Prometheus' error text;
// a missing status is accepted (hand-made files omit it). The alerts are
// returned as listed, never nil on success.
func ParseAlerts(data []byte) ([]Alert, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return nil, errors.New("not a JSON object")
	}
	var p alertsPayload
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, err
	}
	if p.Status != "" && p.Status != "success" {
		if p.Error != "" {
			return nil, fmt.Errorf("status %q: %s", p.Status, p.Error)
		}
		return nil, fmt.Errorf("status %q", p.Status)
	}
	if p.Data == nil || p.Data.Alerts == nil {
		return nil, errors.New("no data.alerts list")
	}
	return *p.Data.Alerts, nil
}
