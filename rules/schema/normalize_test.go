package schema

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// TestNormalizeJSONIsTheRoundTrip: the direct copy gives what a JSON round
// trip (encoding/json, then the API server's decoder) gives, on the number
// edges and on values it must leave to the round trip.
func TestNormalizeJSONIsTheRoundTrip(t *testing.T) {
	values := []any{
		nil, true, "s", int64(-3), 8080.0, math.Copysign(0, -1), 0.5, 1e20, 1e21, 1e-7, 123456789012.0,
		9007199254740991.0, -9007199254740991.0, 9007199254740992.0, 9.223372036854775e18, 9.223372036854776e18, -9.223372036854776e18, -9.3e18,
		map[string]any{"a": []any{1.0, "x", map[string]any(nil)}}, []any(nil), map[string]any(nil),
		3, int32(4), uint64(5), float32(1.5), []string{"a"}, map[string]string{"k": "v"}, json.Number("7"),
		"bad \xff utf-8",
	}
	for _, v := range values {
		obj := map[string]any{"v": v}
		got, err := normalizeJSON(obj)
		if err != nil {
			t.Fatalf("%#v: %v", v, err)
		}
		data, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]any{}
		if err := utiljson.Unmarshal(data, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%#v: got %#v, want %#v", v, got["v"], want["v"])
		}
	}
	if _, err := normalizeJSON(map[string]any{"v": math.NaN()}); err == nil {
		t.Error("NaN: no error")
	}
	if _, err := normalizeJSON(map[string]any{"bad \xff key": "v"}); err != nil {
		t.Errorf("invalid UTF-8 key: %v", err)
	}
}
