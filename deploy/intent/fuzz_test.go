package intent

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// FuzzDecode: Decode never panics, refuses only with a *DecodeError, and an
// intent it accepts re-encodes to a document it accepts again as the same
// value (compared by its encoding, where an empty omitempty list or map and
// an absent one are the same), and Validate runs on it without panicking.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		specExample, fullIntent, `{}`, `null`, `[]`, `{"apiVersion":"deploy.omnia.altairalabs.ai/v1"}`,
		`{"apiVersion":"deploy.omnia.altairalabs.ai/v1","pack":{"version":"vv1"},"agents":[]}`,
		`{"apiVersion":"deploy.omnia.altairalabs.ai/v1","pack":{},"agents":[{"providers":[]}],"labels":{}}`,
		withIntent(`"pack"`, `"tools": {"handlers": [{"name": "h", "type": "http", "tool": {"x": [ 1, {"a" : null} ]}, "auth": null}]}, "pack"`),
		specExample + " x",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := Decode(body)
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("Decode refused with %T %v, want a *DecodeError", err, err)
			}
			return
		}
		_ = Validate(in, nil, DevName("p", "u"))
		first, err := json.Marshal(in)
		if err != nil {
			t.Fatalf("re-encoding a decoded intent: %v", err)
		}
		again, err := Decode(first)
		if err != nil {
			t.Fatalf("a decoded intent re-encodes to %s, which Decode refuses: %v", first, err)
		}
		second, err := json.Marshal(again)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first, second) {
			t.Fatalf("decode → encode → decode changed the intent:\n%s\n%s", first, second)
		}
	})
}
