package metrics_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/reportingplatform/api/shared/metrics"
)

// A line is what CloudWatch's EMF specification asks: the metric's value at the top level, and under
// _aws its namespace, its dimension sets (each naming top-level keys) and its name and unit.
func TestCountWritesOneEMFLine(t *testing.T) {
	for _, tc := range []struct {
		name, cause string
		dims        [][]string
	}{
		{"with a cause", metrics.CauseStore, [][]string{{"Cause"}}},
		{"without", "", [][]string{{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			metrics.New(&buf, "fn").Count(metrics.Unavailable, tc.cause)
			var line struct {
				Unavailable int
				Function    string `json:"function"`
				Cause       string
				AWS         struct {
					Timestamp         int64
					CloudWatchMetrics []struct {
						Namespace  string
						Dimensions [][]string
						Metrics    []struct{ Name, Unit string }
					}
				} `json:"_aws"`
			}
			if err := json.Unmarshal(buf.Bytes(), &line); err != nil || bytes.Count(buf.Bytes(), []byte("\n")) != 1 {
				t.Fatalf("not one JSON line: %q (%v)", buf.String(), err)
			}
			m := line.AWS.CloudWatchMetrics
			if line.Unavailable != 1 || line.Function != "fn" || line.Cause != tc.cause || line.AWS.Timestamp == 0 ||
				len(m) != 1 || m[0].Namespace != metrics.Namespace || len(m[0].Metrics) != 1 ||
				m[0].Metrics[0].Name != metrics.Unavailable || m[0].Metrics[0].Unit != "Count" ||
				len(m[0].Dimensions) != 1 || len(m[0].Dimensions[0]) != len(tc.dims[0]) {
				t.Fatalf("line = %s", buf.String())
			}
		})
	}
}

func TestNilRecorderRecordsNothing(t *testing.T) {
	var r *metrics.Recorder
	r.Count(metrics.OutcomeOpen, "") // must not panic
}
