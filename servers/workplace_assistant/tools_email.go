package workplace

import (
	"strings"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/pycompat/pandas"
	"github.com/gymkit/gymkit/pycompat/pystr"
	"github.com/gymkit/gymkit/pycompat/pyval"
)

// The company directory and email toolkits (spec sections 4.1 and 4.2).

// nowDatetime is str(HARDCODED_CURRENT_TIME), the sent_datetime of every
// email a session sends.
const nowDatetime = "2023-11-30 23:59:00"

var emailFields = tableColumns[tEmails]

func init() {
	defTool("CompanyDirectoryTool", "company_directory_", "find_email_address", []string{"name"}, findEmailAddress)

	const cls, pre = "EmailTool", "email_"
	defTool(cls, pre, "get_email_information_by_id", []string{"email_id", "field"}, getEmailInformation)
	defTool(cls, pre, "search_emails", []string{"query", "date_min", "date_max", "page", "page_size"}, searchEmails)
	defTool(cls, pre, "send_email", []string{"recipient", "subject", "body"}, sendEmail)
	defTool(cls, pre, "delete_email", []string{"email_id"}, deleteEmail)
	defTool(cls, pre, "forward_email", []string{"email_id", "recipient"}, forwardEmail)
	defTool(cls, pre, "reply_email", []string{"email_id", "body"}, replyEmail)
}

func findEmailAddress(w *world, a args) (value, error) {
	name := a.get("name", vStr(""))
	if isStr(name) && name.Str == "" {
		return vStr("Name not provided."), nil
	}
	low, err := lowerValue(name)
	if err != nil {
		return value{}, err
	}
	dir := w.data.directory
	m, err := dir.Column(0).StrContains(low, false)
	if err != nil {
		return value{}, err
	}
	keep, err := pandas.Mask(m)
	if err != nil {
		return value{}, err
	}
	out := []value{}
	for i, k := range keep {
		if k {
			out = append(out, dir.At(i, 0))
		}
	}
	return vList(out), nil
}

// wrapped turns an exception into the tool's own message (the reference's
// try/except blocks).
func wrapped(prefix string, v value, err error) (value, error) {
	if err != nil {
		return vStr(prefix + err.Error()), nil
	}
	return v, nil
}

func getEmailInformation(w *world, a args) (value, error) {
	id, field := a.get("email_id", vNone()), a.get("field", vNone())
	if !pyval.Truthy(id) {
		return vStr("Email ID not provided."), nil
	}
	if !pyval.Truthy(field) {
		return vStr("Field not provided."), nil
	}
	v, err := func() (value, error) {
		t := w.get(tEmails)
		m, err := t.Column(eID).Eq(id)
		if err != nil {
			return value{}, err
		}
		for i, ok := range m {
			if !ok {
				continue
			}
			if err := pyval.CheckHashable(field); err != nil {
				return value{}, err
			}
			if isStr(field) {
				if c := t.Col(field.Str); c >= 0 {
					var o object
					o.add(field.Str, outValue(t.At(i, c)))
					return o.value(), nil
				}
			}
			return vStr("Field '" + pyval.Str(field) + "' not found. Available fields: " + joinNames(emailFields)), nil
		}
		return vStr("Email not found."), nil
	}()
	return wrapped("Error retrieving email information: ", v, err)
}

func searchEmails(w *world, a args) (value, error) {
	v, err := searchEmailsInner(w, a)
	return wrapped("Error searching emails: ", v, err)
}

// emailSearchText is f"{subject} {body} {sender/recipient}".lower().
func emailSearchText(r []value) string {
	return pystr.Lower(pyval.Str(r[eSubject]) + " " + pyval.Str(r[eBody]) + " " + pyval.Str(r[eAddr]))
}

func searchEmailsInner(w *world, a args) (value, error) {
	query := a.get("query", vStr(""))
	dateMin, dateMax := a.get("date_min", vNone()), a.get("date_max", vNone())
	page, pageSize := a.get("page", vInt(1)), a.get("page_size", vInt(5))

	q, err := lowerValue(query)
	if err != nil {
		return value{}, err
	}
	words := pystr.Split(q.Str)
	t := w.get(tEmails)
	var matched []int
	for i, r := range t.Rows() {
		combined, ok := w.data.searchText[&r[0]]
		if !ok {
			combined = emailSearchText(r)
		}
		ok = true
		for _, wd := range words {
			if !strings.Contains(combined, wd) {
				ok = false
				break
			}
		}
		if ok {
			matched = append(matched, i)
		}
	}
	// pd.to_datetime of the matches, then sort_values(ascending=False).
	keys := make([]pandas.Timestamp, len(matched))
	for k, i := range matched {
		ts, err := pandas.ToTimestamp(t.At(i, eSent))
		if err != nil {
			return value{}, err
		}
		keys[k] = ts
	}
	var sortErr error
	order := pandas.SortDescending(len(matched), func(i, j int) bool {
		c, ok, err := keys[i].Cmp(keys[j])
		if err != nil && sortErr == nil {
			sortErr = err
		}
		return ok && c < 0
	})
	if sortErr != nil {
		return value{}, sortErr
	}
	emails := make([]int, len(order))
	for k, o := range order {
		emails[k] = matched[o]
	}
	filter := func(bound value, keep func(e, b int64) bool) error {
		var out []int
		for _, i := range emails {
			ets, err := pandas.ToTimestamp(t.At(i, eSent))
			if err != nil {
				return err
			}
			bts, err := pandas.ToTimestamp(bound)
			if err != nil {
				return err
			}
			ed, ok1 := ets.Day()
			bd, ok2 := bts.Day()
			if ok1 && ok2 && keep(ed, bd) {
				out = append(out, i)
			}
		}
		emails = out
		return nil
	}
	if pyval.Truthy(dateMin) {
		if err := filter(dateMin, func(e, b int64) bool { return e >= b }); err != nil {
			return value{}, err
		}
	}
	if pyval.Truthy(dateMax) {
		if err := filter(dateMax, func(e, b int64) bool { return e <= b }); err != nil {
			return value{}, err
		}
	}
	pg, err := paginate(len(emails), page, pageSize)
	if err != nil {
		return value{}, err
	}
	if len(emails) == 0 {
		return vStr("No emails found."), nil
	}
	lo, hi, err := pg.slice(len(emails))
	if err != nil {
		return value{}, err
	}
	return pageObject("emails", records(t, emails[lo:hi]), "total_emails", len(emails), pg, pageSize), nil
}

// checkRecipient is the unwrapped `"@" not in recipient or "." not in
// recipient` test; ok is false for an invalid address.
func checkRecipient(r value) (bool, error) {
	at, err := pyval.Contains(r, "@")
	if err != nil || !at {
		return false, err
	}
	return pyval.Contains(r, ".")
}

func sendEmail(w *world, a args) (value, error) {
	r, s, b := a.get("recipient", vNone()), a.get("subject", vNone()), a.get("body", vNone())
	if !pyval.Truthy(r) || !pyval.Truthy(s) || !pyval.Truthy(b) {
		return vStr("Recipient, subject, or body not provided."), nil
	}
	ok, err := checkRecipient(r)
	if err != nil {
		return value{}, err
	}
	if !ok {
		return vStr("Invalid recipient email address."), nil
	}
	v, err := func() (value, error) {
		low, err := lowerValue(r)
		if err != nil {
			return value{}, err
		}
		t := w.get(tEmails)
		id := "1"
		if t.Len() > 0 {
			if id, err = nextID(t.Column(eID), false); err != nil {
				return value{}, err
			}
		}
		t = w.mut(tEmails)
		t.Append([]value{vStr(id), vStr("outbox"), low, s, vStr(nowDatetime), b}, 0)
		t.ResetIndex()
		return vStr("Email sent successfully."), nil
	}()
	return wrapped("Error sending email: ", v, err)
}

func deleteEmail(w *world, a args) (value, error) {
	id := a.get("email_id", vNone())
	if !pyval.Truthy(id) {
		return vStr("Email ID not provided."), nil
	}
	t := w.get(tEmails)
	if !t.Column(eID).Contains(id) {
		return vStr("Email not found."), nil
	}
	t = w.mut(tEmails)
	t.Keep(func(i int) bool { return !pyval.Equal(&t.Row(i)[eID], &id) })
	return vStr("Email deleted successfully."), nil
}

// firstEmail returns the first row whose id equals id.
func firstEmail(t *table, id value) (int, bool) {
	for i, r := range t.Rows() {
		if pyval.Equal(&r[eID], &id) {
			return i, true
		}
	}
	return 0, false
}

func forwardEmail(w *world, a args) (value, error) {
	id, r := a.get("email_id", vNone()), a.get("recipient", vNone())
	if !pyval.Truthy(id) || !pyval.Truthy(r) {
		return vStr("Email ID or recipient not provided."), nil
	}
	ok, err := checkRecipient(r)
	if err != nil {
		return value{}, err
	}
	if !ok {
		return vStr("Invalid recipient email address."), nil
	}
	v, err := func() (value, error) {
		t := w.get(tEmails)
		if !t.Column(eID).Contains(id) {
			return vStr("Email not found."), nil
		}
		low, err := lowerValue(r)
		if err != nil {
			return value{}, err
		}
		i, _ := firstEmail(t, id)
		subject, body := t.At(i, eSubject), t.At(i, eBody)
		res, err := sendEmail(w, args{"recipient": low, "subject": vStr("FW: " + pyval.Str(subject)), "body": body})
		if err != nil {
			return value{}, err
		}
		if sendFailed(res) {
			return res, nil
		}
		return vStr("Email forwarded successfully."), nil
	}()
	return wrapped("Error forwarding email: ", v, err)
}

// sendFailed is `"Error" in result or "Invalid" in result`.
func sendFailed(res value) bool {
	return res.Kind == framework.KindString && (strings.Contains(res.Str, "Error") || strings.Contains(res.Str, "Invalid"))
}

func replyEmail(w *world, a args) (value, error) {
	id, body := a.get("email_id", vNone()), a.get("body", vNone())
	if !pyval.Truthy(id) || !pyval.Truthy(body) {
		return vStr("Email ID or body not provided."), nil
	}
	v, err := func() (value, error) {
		t := w.get(tEmails)
		if !t.Column(eID).Contains(id) {
			return vStr("Email not found."), nil
		}
		i, _ := firstEmail(t, id)
		to, subject := t.At(i, eAddr), t.At(i, eSubject)
		res, err := sendEmail(w, args{"recipient": to, "subject": vStr("RE: " + pyval.Str(subject)), "body": body})
		if err != nil {
			return value{}, err
		}
		if sendFailed(res) {
			return res, nil
		}
		return vStr("Email replied successfully."), nil
	}()
	return wrapped("Error replying to email: ", v, err)
}
