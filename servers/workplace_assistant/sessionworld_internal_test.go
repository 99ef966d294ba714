package workplace

import (
	"encoding/json"
	"path/filepath"
	"runtime"
	"testing"
)

func loadTestDataset(t testing.TB) *dataset {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	d, err := loadDataset(filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "data", "nemo-gym", "workplace_assistant", "csv_data"))
	if err != nil {
		t.Fatalf("shared data missing: %v", err)
	}
	return d
}

// TestForkLeavesTheCachedWorldAlone: a fork that writes (a new row, a
// changed cell) never changes the world it was forked from, and a tail
// replayed on a fork equals the whole log replayed on the base.
func TestForkLeavesTheCachedWorldAlone(t *testing.T) {
	t.Parallel()
	d := loadTestDataset(t)
	log := []changeCall{
		{"email_send_email", json.RawMessage(`{"recipient":"a@b.co","subject":"one","body":"b"}`)},
		{"customer_relationship_manager_update_customer", json.RawMessage(`{"customer_id":"00000095","field":"status","new_value":"Lost"}`)},
		{"email_send_email", json.RawMessage(`{"recipient":"a@b.co","subject":"two","body":"b","cc":null}`)},
	}
	cached := d.newWorld()
	replayOn(cached, log[:1])
	before := cached.get(tEmails).Len()
	crmBefore := cached.get(tCRM)

	f := cached.fork()
	replayOn(f, log[1:])
	if n := cached.get(tEmails).Len(); n != before {
		t.Errorf("the cached world has %d emails after its fork wrote, want %d", n, before)
	}
	if cached.get(tCRM) != crmBefore {
		t.Error("the fork replaced the cached world's CRM table")
	}
	whole := d.newWorld()
	replayOn(whole, log)
	if eq, err := sameTables(f, whole); err != nil || !eq {
		t.Errorf("tail on a fork != whole log on the base: %v %v", eq, err)
	}
}

// FuzzChangeLog: any stored log (a corrupted or hand-written Redis value)
// decodes to an error or replays without a panic.
func FuzzChangeLog(f *testing.F) {
	d := loadTestDataset(f)
	f.Add([]byte(`{"gen":"g","calls":[{"t":"email_send_email","a":{"recipient":"a@b.co","subject":"s","body":"b"}}]}`))
	f.Add([]byte(`{"gen":"g","calls":[{"t":"nope","a":[1]},{"t":"email_delete_email","a":{"email_id":null}}]}`))
	f.Add([]byte(`{"calls":[{"t":"calendar_create_event","a":{"event_name":1}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var l changeLog
		if json.Unmarshal(b, &l) != nil || len(l.Calls) > 64 {
			return
		}
		w := d.newWorld()
		replayOn(w, l.Calls)
		_ = w.bytes()
	})
}
