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
	"strings"
	"testing"
	"time"

	"github.com/update-status/apiserver/internal/testio"
)

func TestParseAlerts(t *testing.T) {
	for _, tc := range []struct {
		name    string
		payload string
		want    int    // alerts, when no error
		wantErr string // substring of the error; "" for success
	}{
		{name: "success", payload: `{"status":"success","data":{"alerts":[{"labels":{"alertname":"A","severity":"warning"},"annotations":{"summary":"s"},"state":"firing","activeAt":"2024-06-01T10:00:00.5Z","value":"1e+00"}]}}`, want: 1},
		{name: "empty list", payload: `{"status":"success","data":{"alerts":[]}}`, want: 0},
		{name: "no status (hand-made file)", payload: ` {"data":{"alerts":[{"labels":{"alertname":"A"}}]}} `, want: 1},
		{name: "error status", payload: `{"status":"error","errorType":"bad_data","error":"boom"}`, wantErr: `status "error": boom`},
		{name: "error status without text", payload: `{"status":"error"}`, wantErr: `status "error"`},
		{name: "no data", payload: `{"status":"success"}`, wantErr: "no data.alerts list"},
		{name: "null alerts", payload: `{"status":"success","data":{"alerts":null}}`, wantErr: "no data.alerts list"},
		{name: "alerts not a list", payload: `{"status":"success","data":{"alerts":{}}}`, wantErr: "cannot unmarshal"},
		{name: "bad activeAt", payload: `{"data":{"alerts":[{"activeAt":"yesterday"}]}}`, wantErr: "parsing time"},
		{name: "truncated", payload: `{"status":"success","data":{"alerts":[`, wantErr: "unexpected end"},
		{name: "trailing data", payload: `{"data":{"alerts":[]}} {}`, wantErr: "invalid character"},
		{name: "not an object", payload: `[]`, wantErr: "not a JSON object"},
		{name: "empty", payload: ``, wantErr: "not a JSON object"},
		{name: "HTML", payload: `<html>login</html>`, wantErr: "not a JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			alerts, err := ParseAlerts([]byte(tc.payload))
			if testio.WantError(t, err, tc.wantErr) {
				return
			}
			if alerts == nil || len(alerts) != tc.want {
				t.Fatalf("got %#v, want %d alerts (never nil)", alerts, tc.want)
			}
		})
	}
	alerts, _ := ParseAlerts([]byte(`{"data":{"alerts":[{"labels":{"alertname":"A"},"annotations":{"summary":"s"},"state":"firing","activeAt":"2024-06-01T10:00:00.5Z"}]}}`))
	if a := alerts[0]; a.Labels["alertname"] != "A" || a.Annotations["summary"] != "s" || a.State != "firing" ||
		!a.ActiveAt.Equal(time.Date(2024, 6, 1, 10, 0, 0, 5e8, time.UTC)) {
		t.Errorf("parsed %+v", a)
	}
}

// FuzzParseAlerts feeds arbitrary payloads to the alerts parser and, when they
// parse, the alerts to the engine with a cluster in the middle of an update:
// nothing may panic, and the result must be a valid UpdateStatus. A payload
// is all the live alert source takes from the network.
func FuzzParseAlerts(f *testing.F) {
	f.Add([]byte(`{"status":"success","data":{"alerts":[{"labels":{"alertname":"PodDisruptionBudgetAtLimit","severity":"critical","namespace":"ns"},"annotations":{"summary":"s","description":"d","message":"m","runbook_url":"https://x/r.md"},"state":"firing","activeAt":"2024-06-01T10:10:00.5Z","value":"1e+00"}]}}`))
	f.Add([]byte(`{"status":"success","data":{"alerts":[{"labels":{"alertname":"up_down","severity":"warning"},"annotations":{"runbook_url":"see wiki"},"state":"firing","activeAt":"2024-06-01T10:20:00Z"},{"labels":{"alertname":"A","severity":"info"},"state":"pending","activeAt":"2024-06-01T10:20:00Z"}]}}`))
	f.Add([]byte(`{"status":"error","errorType":"bad_data","error":"boom"}`))
	f.Add([]byte(`{"data":{"alerts":[{"labels":{"alertname":"` + strings.Repeat("x", 300) + `","severity":"warning","namespace":"-bad-"},"activeAt":"2024-06-01T10:20:00Z","state":"firing"}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		alerts, err := ParseAlerts(data)
		if err != nil {
			return
		}
		if alerts == nil {
			t.Fatal("ParseAlerts returned neither alerts nor an error")
		}
		src := cluster()
		src.Alerts = alerts
		mustValid(t, Compute(src, now))
	})
}
