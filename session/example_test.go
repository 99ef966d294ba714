package session_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/gymkit/gymkit/session"
)

// agent calls a server the way NeMo Gym's agents do: it sends the cookies
// of the previous response and replaces them with each response's.
type agent struct {
	url     string
	cookies []*http.Cookie
}

func (a *agent) post(path, body string) string {
	req, _ := http.NewRequest(http.MethodPost, a.url+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for _, c := range a.cookies {
		req.AddCookie(c)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	a.cookies = resp.Cookies()
	b, _ := io.ReadAll(resp.Body)
	return fmt.Sprintf("%d %s", resp.StatusCode, b)
}

func ExampleUpdate() {
	m := session.MustNewManager(session.Options{CookieName: "example_session_state_mgmt___counter"})

	mux := http.NewServeMux()
	mux.HandleFunc("POST /increment_counter", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Count int `json:"count"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusUnprocessableEntity)
			return
		}
		// Atomic per rollout and key: parallel calls lose no increment.
		err := session.Update(r.Context(), "counter", func(n *int) error {
			*n += req.Count
			return nil
		})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		io.WriteString(w, `{"success":true}`)
	})
	mux.HandleFunc("POST /get_counter_value", func(w http.ResponseWriter, r *http.Request) {
		n, _, err := session.Get[int](r.Context(), "counter")
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		fmt.Fprintf(w, `{"count":%d}`, n)
	})
	ts := httptest.NewServer(m.Middleware(mux))
	defer ts.Close()

	rollout1, rollout2 := &agent{url: ts.URL}, &agent{url: ts.URL}
	fmt.Println(rollout1.post("/increment_counter", `{"count":1}`))
	fmt.Println(rollout1.post("/increment_counter", `{"count":2}`))
	fmt.Println(rollout2.post("/increment_counter", `{"count":10}`))
	fmt.Println(rollout1.post("/get_counter_value", `{}`))
	fmt.Println(rollout2.post("/get_counter_value", `{}`))
	// Output:
	// 200 {"success":true}
	// 200 {"success":true}
	// 200 {"success":true}
	// 200 {"count":3}
	// 200 {"count":10}
}

func ExampleGet() {
	type Task struct {
		City     string `json:"city"`
		Expected string `json:"expected"`
	}
	m := session.MustNewManager(session.Options{CookieName: "example_mcp_weather___example_mcp_weather"})

	mux := http.NewServeMux()
	mux.HandleFunc("POST /seed_session", func(w http.ResponseWriter, r *http.Request) {
		var task Task
		_ = json.NewDecoder(r.Body).Decode(&task)
		if err := session.Update(r.Context(), "task", func(t *Task) error { *t = task; return nil }); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		io.WriteString(w, `{}`)
	})
	mux.HandleFunc("POST /verify", func(w http.ResponseWriter, r *http.Request) {
		task, ok, err := session.Get[Task](r.Context(), "task")
		switch {
		case err != nil:
			http.Error(w, err.Error(), http.StatusInternalServerError)
		case !ok:
			io.WriteString(w, `{"reward":0.0,"reason":"not seeded"}`)
		default:
			fmt.Fprintf(w, `{"reward":1.0,"city":%q}`, task.City)
		}
	})
	ts := httptest.NewServer(m.Middleware(mux))
	defer ts.Close()

	a := &agent{url: ts.URL}
	fmt.Println(a.post("/seed_session", `{"city":"Paris","expected":"sunny"}`))
	fmt.Println(a.post("/verify", `{}`))
	fmt.Println((&agent{url: ts.URL}).post("/verify", `{}`)) // another rollout, never seeded
	// Output:
	// 200 {}
	// 200 {"reward":1.0,"city":"Paris"}
	// 200 {"reward":0.0,"reason":"not seeded"}
}

func ExampleWithID() {
	m := session.MustNewManager(session.Options{CookieName: "example_session_state_mgmt___counter"})
	ts := httptest.NewServer(m.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// /seed_session: the MCP door would put this id into the signed
		// session token it returns.
		io.WriteString(w, session.ID(r.Context()))
	})))
	defer ts.Close()
	a := &agent{url: ts.URL}
	id := strings.TrimPrefix(a.post("/seed_session", `{}`), "200 ")

	// Later, an MCP tools/call carries the token; the door verifies it and
	// runs the tool in the same session.
	ctx := session.WithID(context.Background(), m, id)
	_ = session.Update(ctx, "calls", func(n *int) error { *n++; return nil })
	n, ok, err := session.Get[int](ctx, "calls")
	fmt.Println(session.ID(ctx) == id, n, ok, err)
	// Output:
	// true 1 true <nil>
}

func ExampleID() {
	m := session.MustNewManager(session.Options{CookieName: "example___example"})
	h := m.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, session.ID(r.Context()))
	}))

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/seed_session", nil))
	id := rec.Body.String()
	cookie := rec.Result().Cookies()[0]

	rec = httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/get_weather", nil)
	req.AddCookie(cookie)
	h.ServeHTTP(rec, req)

	fmt.Println(len(id), rec.Body.String() == id, session.ID(context.Background()) == "")
	// The answer carries the cookie again, re-signed (its value changes as
	// time passes), with the same attributes.
	fmt.Println(strings.HasSuffix(rec.Header().Get("Set-Cookie"), "; Path=/; Max-Age=1209600; HttpOnly; SameSite=Lax"))
	// Output:
	// 36 true true
	// true
}
