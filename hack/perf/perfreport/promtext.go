package perfreport

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"
)

// Series is one sample of a Prometheus text exposition: its labels and value.
type Series struct {
	Labels map[string]string
	Value  float64
}

// Samples returns the samples of the metric name in a Prometheus text
// exposition (the API server's /metrics, the operator's). It is a small
// reader of the text format, enough for counters, gauges and histogram
// _count/_sum lines; it never panics on malformed input.
func Samples(body, name string) ([]Series, error) {
	var out []Series
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		rest := strings.TrimPrefix(line, name)
		labels := map[string]string{}
		if strings.HasPrefix(rest, "{") {
			end := strings.LastIndex(rest, "}")
			if end < 0 {
				return nil, fmt.Errorf("metrics: unterminated labels: %q", line)
			}
			var err error
			if labels, err = parseLabels(rest[1:end]); err != nil {
				return nil, fmt.Errorf("metrics: %q: %w", line, err)
			}
			rest = rest[end+1:]
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			return nil, fmt.Errorf("metrics: no value: %q", line)
		}
		v, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			return nil, fmt.Errorf("metrics: value of %q: %w", line, err)
		}
		out = append(out, Series{Labels: labels, Value: v})
	}
	return out, sc.Err()
}

// parseLabels parses `a="x",b="y"` (values are quoted, with \" \\ \n
// escapes).
func parseLabels(s string) (map[string]string, error) {
	out := map[string]string{}
	for len(s) > 0 {
		eq := strings.IndexByte(s, '=')
		if eq < 0 || eq+1 >= len(s) || s[eq+1] != '"' {
			return nil, fmt.Errorf("bad label set %q", s)
		}
		key := strings.TrimSpace(s[:eq])
		var val strings.Builder
		i := eq + 2
		for ; i < len(s) && s[i] != '"'; i++ {
			if s[i] == '\\' && i+1 < len(s) {
				i++
				switch s[i] {
				case 'n':
					val.WriteByte('\n')
				default:
					val.WriteByte(s[i])
				}
				continue
			}
			val.WriteByte(s[i])
		}
		if i >= len(s) {
			return nil, fmt.Errorf("unterminated value in %q", s)
		}
		out[key] = val.String()
		s = strings.TrimPrefix(s[i+1:], ",")
	}
	return out, nil
}
