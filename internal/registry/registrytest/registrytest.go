// Package registrytest is a Confluent-compatible schema registry in
// memory, served on loopback for tests: what real serializers register
// their schemas with, and what kwire then reads them from.
package registrytest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
)

// Reference is a schema reference as the registry's REST API spells it.
type Reference struct {
	Name    string `json:"name"`
	Subject string `json:"subject"`
	Version int    `json:"version"`
}

// Schema is one registered schema.
type Schema struct {
	ID         int         `json:"id"`
	Subject    string      `json:"subject,omitempty"`
	Version    int         `json:"version,omitempty"`
	Schema     string      `json:"schema"`
	SchemaType string      `json:"schemaType,omitempty"`
	References []Reference `json:"references,omitempty"`
}

// Registry is the server's state. Auth, when set, must match the
// request's Authorization header exactly. Requests counts every request.
type Registry struct {
	mu       sync.Mutex
	byID     []*Schema
	subjects map[string][]*Schema
	configs  map[string]string
	Auth     string
	Requests int
	// Handler, when set, answers GET /schemas/ids/ before the registry
	// does (a garbage or slow registry); it returns false to pass.
	Handler func(w http.ResponseWriter, r *http.Request) bool
}

// Start serves a new registry on loopback; Close the server when done.
func Start() (*Registry, *httptest.Server) {
	r := &Registry{subjects: map[string][]*Schema{}, configs: map[string]string{}}
	return r, httptest.NewServer(r)
}

// Register adds a schema under subject (as POST /subjects/{s}/versions
// does) and returns its id; the same schema text registered again keeps
// its id.
func (r *Registry) Register(subject string, s Schema) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.register(subject, s)
}

func (r *Registry) register(subject string, s Schema) int {
	for _, x := range r.subjects[subject] {
		if x.Schema == s.Schema && x.SchemaType == s.SchemaType {
			return x.ID
		}
	}
	if s.SchemaType == "AVRO" {
		s.SchemaType = ""
	}
	id := len(r.byID) + 1
	for _, x := range r.byID {
		if x.Schema == s.Schema && x.SchemaType == s.SchemaType {
			id = x.ID
		}
	}
	n := &Schema{ID: id, Subject: subject, Version: len(r.subjects[subject]) + 1, Schema: s.Schema, SchemaType: s.SchemaType, References: s.References}
	if id == len(r.byID)+1 {
		r.byID = append(r.byID, n)
	}
	r.subjects[subject] = append(r.subjects[subject], n)
	return id
}

func (r *Registry) ServeHTTP(w http.ResponseWriter, q *http.Request) {
	r.mu.Lock()
	r.Requests++
	auth, h := r.Auth, r.Handler
	r.mu.Unlock()
	if auth != "" && q.Header.Get("Authorization") != auth {
		answer(w, http.StatusUnauthorized, map[string]any{"error_code": 401, "message": "Unauthorized"})
		return
	}
	if h != nil && strings.HasPrefix(q.URL.Path, "/schemas/ids/") && h(w, q) {
		return
	}
	parts := strings.Split(strings.Trim(q.URL.EscapedPath(), "/"), "/")
	for i, p := range parts {
		parts[i], _ = url.PathUnescape(p)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case len(parts) == 3 && parts[0] == "schemas" && parts[1] == "ids" && q.Method == http.MethodGet:
		id, _ := strconv.Atoi(parts[2])
		if id < 1 || id > len(r.byID) {
			answer(w, http.StatusNotFound, map[string]any{"error_code": 40403, "message": "Schema " + parts[2] + " not found"})
			return
		}
		s := r.byID[id-1]
		answer(w, http.StatusOK, Schema{Schema: s.Schema, SchemaType: s.SchemaType, References: s.References})
	case len(parts) == 2 && parts[0] == "config":
		if q.Method == http.MethodPut {
			var c struct{ Compatibility string }
			json.NewDecoder(q.Body).Decode(&c)
			r.configs[parts[1]] = c.Compatibility
			answer(w, http.StatusOK, map[string]string{"compatibility": c.Compatibility})
			return
		}
		c, ok := r.configs[parts[1]]
		if !ok {
			answer(w, http.StatusNotFound, map[string]any{"error_code": 40401, "message": "Subject not found"})
			return
		}
		answer(w, http.StatusOK, map[string]string{"compatibilityLevel": c})
	case len(parts) == 3 && parts[0] == "subjects" && parts[2] == "versions" && q.Method == http.MethodPost:
		var s Schema
		if err := json.NewDecoder(q.Body).Decode(&s); err != nil {
			answer(w, http.StatusUnprocessableEntity, map[string]any{"error_code": 42201, "message": err.Error()})
			return
		}
		answer(w, http.StatusOK, map[string]int{"id": r.register(parts[1], s)})
	case len(parts) == 2 && parts[0] == "subjects" && q.Method == http.MethodPost:
		// Look a schema up under a subject.
		var s Schema
		if err := json.NewDecoder(q.Body).Decode(&s); err != nil {
			answer(w, http.StatusUnprocessableEntity, map[string]any{"error_code": 42201, "message": err.Error()})
			return
		}
		if s.SchemaType == "AVRO" {
			s.SchemaType = ""
		}
		for _, x := range r.subjects[parts[1]] {
			if x.Schema == s.Schema && x.SchemaType == s.SchemaType {
				answer(w, http.StatusOK, x)
				return
			}
		}
		answer(w, http.StatusNotFound, map[string]any{"error_code": 40403, "message": "Schema not found"})
	case len(parts) == 4 && parts[0] == "subjects" && parts[2] == "versions" && q.Method == http.MethodGet:
		vs := r.subjects[parts[1]]
		v := len(vs)
		if parts[3] != "latest" {
			v, _ = strconv.Atoi(parts[3])
		}
		if v < 1 || v > len(vs) {
			answer(w, http.StatusNotFound, map[string]any{"error_code": 40402, "message": "Version not found"})
			return
		}
		answer(w, http.StatusOK, vs[v-1])
	default:
		answer(w, http.StatusNotFound, map[string]any{"error_code": 404, "message": "HTTP 404 Not Found"})
	}
}

func answer(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/vnd.schemaregistry.v1+json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}
