// The lensesio/schema-registry Go client (Debian's golang-github-lensesio-schema-registry-dev
// 0.1.0, built with GO111MODULE=off GOPATH=/usr/share/gocode) against skiff's schema registry,
// for test_schema_registry_go.py.
//
//	main REGISTRY_URL
//
// The client registers schemas, lists subjects, versions, gets schemas by id, by version and the
// latest, asks whether a schema is registered, and reads Confluent's error codes from its own
// error value. It sends its POST bodies chunked and without a Content-Type, as Go's http client
// does with a streamed body. Version 0.1.0 has no call for compatibility checks, levels or
// deletes: those requests are made here with net/http, and their effects are read back through
// the client. Every check that fails exits 1 with what was expected; at the end it prints
// "ok: lensesio/schema-registry" and the ids as JSON.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"sort"
	"strings"
	"sync"

	schemaregistry "github.com/lensesio/schema-registry"
)

const (
	subject = "go-users-value"
	copySub = "go-users-copy"
	v1      = `{"type":"record","name":"User","namespace":"go","fields":[{"name":"id","type":"long"},{"name":"email","type":"string"}]}`
	// A field added with a default: BACKWARD compatible.
	v2 = `{"type":"record","name":"User","namespace":"go","fields":[{"name":"id","type":"long"},{"name":"email","type":"string"},{"name":"age","type":"int","default":0}]}`
	// A field added without a default: not BACKWARD compatible.
	bad = `{"type":"record","name":"User","namespace":"go","fields":[{"name":"id","type":"long"},{"name":"email","type":"string"},{"name":"age","type":"int","default":0},{"name":"city","type":"string"}]}`
)

var registryURL string

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "FAILED: "+format+"\n", args...)
	os.Exit(1)
}

func must(err error, what string) {
	if err != nil {
		fail("%s: %v", what, err)
	}
}

func equal(got, want interface{}, what string) {
	if !reflect.DeepEqual(got, want) {
		fail("%s: got %#v, want %#v", what, got, want)
	}
}

// sameSchema compares two schema texts as JSON (the registry may answer another layout).
func sameSchema(got, want, what string) {
	var g, w interface{}
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		fail("%s: %q is not JSON: %v", what, got, err)
	}
	must(json.Unmarshal([]byte(want), &w), "want")
	equal(g, w, what)
}

// errorCode reads error_code from the client's error value (its type is unexported; the field
// is not).
func errorCode(err error, what string) int {
	if err == nil {
		fail("%s: no error", what)
	}
	v := reflect.ValueOf(err)
	if v.Kind() != reflect.Struct || !v.FieldByName("ErrorCode").IsValid() {
		fail("%s: %T %v is not the registry's error", what, err, err)
	}
	return int(v.FieldByName("ErrorCode").Int())
}

func wantCode(err error, code int, what string) {
	equal(errorCode(err, what), code, what+": error_code")
}

// call makes a request the client has no method for; decodes the JSON answer into out.
func call(method, path string, body interface{}, wantStatus int, out interface{}) {
	var rd *bytes.Reader
	if body != nil {
		b, err := json.Marshal(body)
		must(err, "marshal")
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, err := http.NewRequest(method, registryURL+path, rd)
	must(err, "request")
	req.Header.Set("Content-Type", "application/vnd.schemaregistry.v1+json")
	resp, err := http.DefaultClient.Do(req)
	must(err, method+" "+path)
	defer resp.Body.Close()
	if resp.StatusCode != wantStatus {
		fail("%s %s: status %d, want %d", method, path, resp.StatusCode, wantStatus)
	}
	must(json.NewDecoder(resp.Body).Decode(out), method+" "+path+": body")
}

func main() {
	if len(os.Args) != 2 {
		fail("usage: %s REGISTRY_URL", os.Args[0])
	}
	registryURL = strings.TrimRight(os.Args[1], "/")
	c, err := schemaregistry.NewClient(registryURL)
	must(err, "NewClient")

	subjects, err := c.Subjects()
	must(err, "Subjects on an empty registry")
	if subjects == nil || len(subjects) != 0 {
		fail("Subjects on an empty registry: %#v, want []", subjects)
	}

	// Registration: the same schema again (another layout) and under another subject keeps its id.
	id1, err := c.RegisterNewSchema(subject, v1)
	must(err, "register v1")
	if id1 <= 0 {
		fail("id %d", id1)
	}
	var spaced bytes.Buffer
	must(json.Indent(&spaced, []byte(v1), "", "  "), "indent")
	again, err := c.RegisterNewSchema(subject, spaced.String())
	must(err, "register v1 again")
	equal(again, id1, "id of v1 registered again")
	copyID, err := c.RegisterNewSchema(copySub, v1)
	must(err, "register v1 under another subject")
	equal(copyID, id1, "id of v1 under another subject")
	_, err = c.RegisterNewSchema(subject, bad)
	wantCode(err, 409, "incompatible registration")
	id2, err := c.RegisterNewSchema(subject, v2)
	must(err, "register v2")
	if id2 <= id1 {
		fail("id of v2 %d not above %d", id2, id1)
	}
	_, err = c.RegisterNewSchema("go-invalid", `{"type":"recrod","name":"X","fields":[]}`)
	wantCode(err, 42201, "invalid schema")

	// Reading back.
	subjects, err = c.Subjects()
	must(err, "Subjects")
	sort.Strings(subjects)
	equal(subjects, []string{copySub, subject}, "subjects")
	versions, err := c.Versions(subject)
	must(err, "Versions")
	equal(versions, []int{1, 2}, "versions")
	text, err := c.GetSchemaById(id1)
	must(err, "GetSchemaById v1")
	sameSchema(text, v1, "schema of id1")
	text, err = c.GetSchemaById(id2)
	must(err, "GetSchemaById v2")
	sameSchema(text, v2, "schema of id2")
	s, err := c.GetSchemaBySubject(subject, 1)
	must(err, "GetSchemaBySubject 1")
	equal([]interface{}{s.Subject, s.Version, s.Id}, []interface{}{subject, 1, id1}, "version 1")
	sameSchema(s.Schema, v1, "schema of version 1")
	s, err = c.GetLatestSchema(subject)
	must(err, "GetLatestSchema")
	equal([]interface{}{s.Subject, s.Version, s.Id}, []interface{}{subject, 2, id2}, "latest")
	sameSchema(s.Schema, v2, "latest schema")
	ok, s, err := c.IsRegistered(subject, spaced.String())
	must(err, "IsRegistered v1")
	equal([]interface{}{ok, s.Subject, s.Version, s.Id}, []interface{}{true, subject, 1, id1}, "v1 registered")
	// A schema not under the subject: the client expects 40403 and answers false.
	ok, _, err = c.IsRegistered(subject, bad)
	must(err, "IsRegistered of an unregistered schema")
	equal(ok, false, "unregistered schema")

	// Errors.
	_, _, err = c.IsRegistered("go-nobody", v1)
	wantCode(err, 40401, "IsRegistered under an unknown subject")
	_, err = c.GetLatestSchema("go-nobody")
	wantCode(err, 40401, "latest of an unknown subject")
	_, err = c.Versions("go-nobody")
	wantCode(err, 40401, "versions of an unknown subject")
	_, err = c.GetSchemaBySubject(subject, 9)
	wantCode(err, 40402, "unknown version")
	_, err = c.GetSchemaById(987654)
	wantCode(err, 40403, "unknown id")

	// Compatibility (no client call: plain HTTP), then its effect on the client's registration.
	var verdict struct {
		IsCompatible *bool `json:"is_compatible"`
	}
	call("POST", "/compatibility/subjects/"+subject+"/versions/latest", map[string]string{"schema": bad}, 200, &verdict)
	if verdict.IsCompatible == nil || *verdict.IsCompatible {
		fail("bad against latest: %#v", verdict.IsCompatible)
	}
	verdict.IsCompatible = nil
	call("POST", "/compatibility/subjects/"+subject+"/versions/1", map[string]string{"schema": v2}, 200, &verdict)
	if verdict.IsCompatible == nil || !*verdict.IsCompatible {
		fail("v2 against version 1: %#v", verdict.IsCompatible)
	}
	var level map[string]string
	call("PUT", "/config/"+subject, map[string]string{"compatibility": "NONE"}, 200, &level)
	equal(level, map[string]string{"compatibility": "NONE"}, "level set")
	level = nil
	call("GET", "/config/"+subject, nil, 200, &level)
	equal(level["compatibilityLevel"], "NONE", "level read back")
	id3, err := c.RegisterNewSchema(subject, bad)
	must(err, "register the incompatible schema at level NONE")
	if id3 <= id2 {
		fail("id3 %d not above %d", id3, id2)
	}
	versions, err = c.Versions(subject)
	must(err, "Versions")
	equal(versions, []int{1, 2, 3}, "versions at level NONE")

	// Deletes (no client call: plain HTTP), read back through the client.
	var deleted int
	call("DELETE", "/subjects/"+subject+"/versions/3", nil, 200, &deleted)
	equal(deleted, 3, "version 3 deleted")
	versions, err = c.Versions(subject)
	must(err, "Versions after the delete")
	equal(versions, []int{1, 2}, "versions after the delete")
	s, err = c.GetLatestSchema(subject)
	must(err, "latest after the delete")
	equal(s.Version, 2, "latest version after the delete")
	_, err = c.GetSchemaBySubject(subject, 3)
	wantCode(err, 40402, "soft-deleted version")
	text, err = c.GetSchemaById(id3)
	must(err, "a soft-deleted version's schema by id")
	sameSchema(text, bad, "schema of id3")
	var gone []int
	call("DELETE", "/subjects/"+copySub, nil, 200, &gone)
	equal(gone, []int{1}, "subject soft-deleted")
	subjects, err = c.Subjects()
	must(err, "Subjects after the delete")
	equal(subjects, []string{subject}, "subjects after the delete")
	gone = nil
	call("DELETE", "/subjects/"+copySub+"?permanent=true", nil, 200, &gone)
	equal(gone, []int{1}, "subject hard-deleted")
	_, err = c.Versions(copySub)
	wantCode(err, 40401, "versions of a hard-deleted subject")
	_, _, err = c.IsRegistered(copySub, v1)
	wantCode(err, 40401, "IsRegistered under a hard-deleted subject")
	text, err = c.GetSchemaById(id1)
	must(err, "id1 (still under "+subject+")")
	sameSchema(text, v1, "schema of id1 after the delete")

	// Concurrent registrations, each goroutine its own subject and client: every id distinct.
	const workers, each = 8, 5
	ids := make([][]int, workers)
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			wc, err := schemaregistry.NewClient(registryURL)
			if err != nil {
				errs <- err
				return
			}
			fields := `{"name":"id","type":"long"}`
			for i := 0; i < each; i++ {
				fields += fmt.Sprintf(`,{"name":"f%d","type":"string","default":"w%d"}`, i, w)
				id, err := wc.RegisterNewSchema(fmt.Sprintf("go-par-%d", w),
					fmt.Sprintf(`{"type":"record","name":"P%d","fields":[%s]}`, w, fields))
				if err != nil {
					errs <- fmt.Errorf("worker %d schema %d: %v", w, i, err)
					return
				}
				ids[w] = append(ids[w], id)
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		fail("concurrent registration: %v", err)
	}
	seen := map[int]bool{id1: true, id2: true, id3: true}
	for w := 0; w < workers; w++ {
		for _, id := range ids[w] {
			if seen[id] {
				fail("id %d handed out twice (worker %d: %v)", id, w, ids[w])
			}
			seen[id] = true
		}
		versions, err := c.Versions(fmt.Sprintf("go-par-%d", w))
		must(err, "versions of a concurrent subject")
		equal(versions, []int{1, 2, 3, 4, 5}, fmt.Sprintf("versions of go-par-%d", w))
		s, err := c.GetLatestSchema(fmt.Sprintf("go-par-%d", w))
		must(err, "latest of a concurrent subject")
		equal(s.Id, ids[w][each-1], "latest id of a concurrent subject")
	}

	out, _ := json.Marshal(map[string]interface{}{"id1": id1, "id2": id2, "id3": id3, "parallel": ids})
	fmt.Printf("ok: lensesio/schema-registry %s\n", out)
}
