package schema

import (
	"encoding/json"
	"math"
	"unicode/utf8"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// normalizeJSON copies obj the way the API server decodes a request body:
// integral numbers become int64 and other numbers float64, whatever the
// caller decoded them as (YAML decoders hand out float64 for 8080). It
// reports values JSON cannot carry.
//
// The answer is that of a JSON round trip (encoding/json, then the API
// server's utiljson decoder). Objects made only of what a JSON decoder
// returns — maps, lists, strings, booleans, int64 and float64 — are copied
// directly, with the round trip's number rules, which is several times
// cheaper; anything else (other Go types, invalid UTF-8, NaN) takes the
// round trip itself.
func normalizeJSON(obj map[string]any) (map[string]any, error) {
	if out, ok := normalizedMap(obj); ok {
		return out, nil
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	if err := utiljson.Unmarshal(data, &out); err != nil {
		return nil, err
	}
	return out, nil
}

func normalizedMap(m map[string]any) (map[string]any, bool) {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if !utf8.ValidString(k) {
			return nil, false // encoding/json would replace the bad bytes
		}
		nv, ok := normalizedValue(v)
		if !ok {
			return nil, false
		}
		out[k] = nv
	}
	return out, true
}

// normalizedValue is v after a JSON round trip, or false when only the
// round trip itself can say.
func normalizedValue(v any) (any, bool) {
	switch t := v.(type) {
	case nil, bool, int64:
		return t, true
	case string:
		return t, utf8.ValidString(t)
	case float64:
		return normalizedFloat(t)
	case map[string]any:
		if t == nil {
			return nil, true // null
		}
		return normalizedMap(t)
	case []any:
		if t == nil {
			return nil, true // null
		}
		out := make([]any, len(t))
		for i, e := range t {
			ne, ok := normalizedValue(e)
			if !ok {
				return nil, false
			}
			out[i] = ne
		}
		return out, true
	}
	return nil, false
}

// normalizedFloat applies the round trip's number rules: encoding/json
// writes an integral float64 without a fraction or exponent, and the decoder
// reads such a number as int64. Below 2^53 that is the float's exact value;
// above, encoding/json writes the shortest digits that read back as the
// same float ("9223372036854775000"), which only the round trip reproduces.
// Any other number stays the same float64.
func normalizedFloat(f float64) (any, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, false // encoding/json refuses them
	}
	if f != math.Trunc(f) {
		return f, true
	}
	if math.Abs(f) < 1<<53 {
		return int64(f), true
	}
	return nil, false
}
