package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	yaml "go.yaml.in/yaml/v2"
)

// source is one input: a file's bytes, or stdin's.
type source struct {
	// name is the path as given (or found under a directory); "-" for stdin.
	name string
	data []byte
}

// inputError is unusable input: omniactl exits 2 with its message.
type inputError struct{ msg string }

func (e *inputError) Error() string { return e.msg }

func inputErrorf(format string, args ...any) error {
	return &inputError{msg: fmt.Sprintf(format, args...)}
}

// manifestExt reports whether a file found under a directory is a manifest.
func manifestExt(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// stdinName names standard input in messages and reports.
const stdinName = "<stdin>"

// readSources expands paths (files, directories searched recursively for
// *.yaml, *.yml and *.json, "-" for stdin) and reads them. A file named
// explicitly is read whatever its extension.
func readSources(paths []string, stdin io.Reader) ([]source, error) {
	var out []source
	stdinRead := false
	for _, p := range paths {
		if p == "-" {
			if stdinRead {
				continue
			}
			stdinRead = true
			data, err := io.ReadAll(stdin)
			if err != nil {
				return nil, inputErrorf("reading stdin: %v", err)
			}
			out = append(out, source{name: stdinName, data: data})
			continue
		}
		info, err := os.Stat(p)
		if err != nil {
			return nil, inputErrorf("%s: %v", p, unwrapPathError(err))
		}
		if !info.IsDir() {
			data, err := os.ReadFile(p)
			if err != nil {
				return nil, inputErrorf("%s: %v", p, unwrapPathError(err))
			}
			out = append(out, source{name: p, data: data})
			continue
		}
		var files []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && manifestExt(path) {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return nil, inputErrorf("%s: %v", p, unwrapPathError(err))
		}
		sort.Strings(files)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, inputErrorf("%s: %v", f, unwrapPathError(err))
			}
			out = append(out, source{name: f, data: data})
		}
	}
	return out, nil
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// chunk is one document's text before parsing.
type chunk struct {
	file string
	line int
	data []byte
	json bool
}

// isJSON reports whether a source holds JSON rather than YAML: a .json file,
// or any input whose first non-blank byte opens a JSON object or array.
func isJSON(s source) bool {
	if strings.EqualFold(filepath.Ext(s.name), ".json") {
		return true
	}
	trimmed := bytes.TrimLeft(s.data, " \t\r\n")
	return len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[')
}

// splitYAML splits a YAML stream into documents at `---` lines, as kubectl
// does (k8s.io/apimachinery's YAMLReader), remembering where each starts.
func splitYAML(s source) ([]chunk, error) {
	var out []chunk
	data := s.data
	line := 1
	start, startLine := 0, 1
	empty := true
	flush := func(end int) {
		if !empty {
			out = append(out, chunk{file: s.name, line: startLine, data: data[start:end]})
		}
	}
	for pos := 0; pos < len(data); {
		next := bytes.IndexByte(data[pos:], '\n')
		end := len(data)
		if next >= 0 {
			end = pos + next + 1
		}
		text := data[pos:end]
		if bytes.HasPrefix(text, []byte("---")) {
			rest := strings.TrimSpace(string(text[3:]))
			if rest != "" && rest[0] != '#' {
				return nil, inputErrorf("%s: line %d: invalid YAML document separator: %s", s.name, line, rest)
			}
			flush(pos)
			start, startLine, empty = end, line+1, true
		} else if empty && !blankOrComment(text) {
			if start < pos {
				// Skip leading blank lines so a document starts at its content.
				start, startLine = pos, line
			}
			empty = false
		}
		pos = end
		line++
	}
	flush(len(data))
	return out, nil
}

func blankOrComment(line []byte) bool {
	t := bytes.TrimSpace(line)
	return len(t) == 0 || t[0] == '#'
}

// splitJSON splits a stream of JSON values into documents.
func splitJSON(s source) ([]chunk, error) {
	var out []chunk
	dec := json.NewDecoder(bytes.NewReader(s.data))
	for {
		var raw json.RawMessage
		offset := dec.InputOffset()
		if err := dec.Decode(&raw); err == io.EOF {
			return out, nil
		} else if err != nil {
			return nil, inputErrorf("%s: document %d: invalid JSON: %v", s.name, len(out)+1, err)
		}
		// InputOffset before Decode may sit before whitespace; count lines to
		// the value itself.
		lead := int(offset) + len(s.data[offset:]) - len(bytes.TrimLeft(s.data[offset:], " \t\r\n"))
		out = append(out, chunk{file: s.name, line: 1 + bytes.Count(s.data[:lead], []byte("\n")), data: raw, json: true})
	}
}

// splitSources splits every source into numbered document chunks.
func splitSources(sources []source) ([]chunk, error) {
	var out []chunk
	for _, s := range sources {
		var chunks []chunk
		var err error
		if isJSON(s) {
			chunks, err = splitJSON(s)
		} else {
			chunks, err = splitYAML(s)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, chunks...)
	}
	return out, nil
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// parseChunk parses one document into JSON-compatible values, the way
// kubectl turns YAML into the JSON it sends (sigs.k8s.io/yaml: YAML 1.1 with
// go.yaml.in/yaml/v2, non-string keys made strings). It returns nil for an
// empty document.
func parseChunk(c chunk) (map[string]any, error) {
	if c.json {
		var obj any
		dec := json.NewDecoder(bytes.NewReader(c.data))
		dec.UseNumber()
		if err := dec.Decode(&obj); err != nil {
			return nil, err
		}
		obj = jsonNumbers(obj)
		m, ok := obj.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("a manifest is a JSON object, not %s", jsonKind(obj))
		}
		return m, nil
	}
	var raw any
	if err := yaml.Unmarshal(c.data, &raw); err != nil {
		// Report the file's line, not the document's.
		msg := yamlLine.ReplaceAllStringFunc(err.Error(), func(s string) string {
			n, _ := strconv.Atoi(s[len("line "):])
			return "line " + strconv.Itoa(n+c.line-1)
		})
		return nil, errors.New(msg)
	}
	if raw == nil {
		return nil, nil
	}
	obj, err := jsonable(raw)
	if err != nil {
		return nil, err
	}
	m, ok := obj.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("a manifest is a YAML mapping, not %s", jsonKind(obj))
	}
	return m, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "a list"
	case string:
		return "a string"
	case nil:
		return "null"
	}
	return "a scalar"
}

// jsonNumbers turns json.Numbers into int64 or float64, as the API server's
// decoder does.
func jsonNumbers(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = jsonNumbers(e)
		}
	case []any:
		for i, e := range t {
			t[i] = jsonNumbers(e)
		}
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return f
	}
	return v
}

// jsonable converts go.yaml.in/yaml/v2 values to JSON-compatible ones, with
// sigs.k8s.io/yaml's key conversions.
func jsonable(v any) (any, error) {
	switch t := v.(type) {
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			var key string
			switch kt := k.(type) {
			case string:
				key = kt
			case int:
				key = strconv.Itoa(kt)
			case int64:
				key = strconv.FormatInt(kt, 10)
			case uint64:
				key = strconv.FormatUint(kt, 10)
			case float64:
				key = strconv.FormatFloat(kt, 'g', -1, 32)
				switch key {
				case "+Inf":
					key = ".inf"
				case "-Inf":
					key = "-.inf"
				case "NaN":
					key = ".nan"
				}
			case bool:
				key = strconv.FormatBool(kt)
			default:
				return nil, fmt.Errorf("unsupported map key %v of type %T", k, k)
			}
			var err error
			if m[key], err = jsonable(e); err != nil {
				return nil, err
			}
		}
		return m, nil
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			var err error
			if out[i], err = jsonable(e); err != nil {
				return nil, err
			}
		}
		return out, nil
	case int:
		return int64(t), nil
	case uint64:
		return float64(t), nil
	}
	return v, nil
}

// parallel calls fn(i) for i in [0,n) on up to workers goroutines.
func parallel(n, workers int, fn func(i int)) {
	if workers > n {
		workers = n
	}
	if workers <= 1 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		next int
	)
	// Hand out small batches: cheap to schedule, still balanced when
	// documents differ in cost.
	const batch = 16
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				from := next
				next += batch
				mu.Unlock()
				if from >= n {
					return
				}
				for i := from; i < min(from+batch, n); i++ {
					fn(i)
				}
			}
		}()
	}
	wg.Wait()
}
