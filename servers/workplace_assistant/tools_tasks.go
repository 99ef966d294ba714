package workplace

import (
	"regexp"

	"github.com/gymkit/gymkit/pycompat"
	"github.com/gymkit/gymkit/pycompat/pandas"
	"github.com/gymkit/gymkit/pycompat/pystr"
	"github.com/gymkit/gymkit/pycompat/pyval"
)

// The project management and CRM toolkits (spec sections 4.5 and 4.6).

var (
	taskLists   = []string{"Backlog", "In Progress", "In Review", "Completed"}
	taskBoards  = []string{"Back end", "Front end", "Design"}
	crmStatuses = []string{"Qualified", "Won", "Lost", "Lead", "Proposal"}
	crmProducts = []string{"Software", "Hardware", "Services", "Consulting", "Training"}

	// re.match(r"^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}$", s): Python's
	// $ also matches before one trailing newline.
	taskEmailPattern = regexp.MustCompile(`^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}\n?$`)
)

const (
	msgBoard    = "Board not valid. Please choose from: 'Back end', 'Front end', 'Design'."
	msgList     = "List not valid. Please choose from: 'Backlog', 'In Progress', 'In Review', 'Completed'."
	msgAssignee = "Assignee email not valid. Please choose from the list of team members."
)

func init() {
	const cls, pre = "ProjectManagementTool", "project_management_"
	defTool(cls, pre, "get_task_information_by_id", []string{"task_id", "field"}, getTaskInformation)
	defTool(cls, pre, "search_tasks", []string{"task_name", "assigned_to_email", "list_name", "due_date", "board"}, searchTasks)
	defTool(cls, pre, "create_task", []string{"task_name", "assigned_to_email", "list_name", "due_date", "board"}, createTask)
	defTool(cls, pre, "delete_task", []string{"task_id"}, deleteTask)
	defTool(cls, pre, "update_task", []string{"task_id", "field", "new_value"}, updateTask)

	const ccls, cpre = "CustomerRelationshipManagerTool", "customer_relationship_manager_"
	defTool(ccls, cpre, "search_customers", []string{"customer_name", "customer_email", "product_interest", "status",
		"assigned_to_email", "last_contact_date_min", "last_contact_date_max", "follow_up_by_min", "follow_up_by_max",
		"page", "page_size"}, searchCustomers)
	defTool(ccls, cpre, "update_customer", []string{"customer_id", "field", "new_value"}, updateCustomer)
	defTool(ccls, cpre, "add_customer", []string{"customer_name", "assigned_to_email", "status", "customer_email",
		"customer_phone", "last_contact_date", "product_interest", "notes", "follow_up_by"}, addCustomer)
	defTool(ccls, cpre, "delete_customer", []string{"customer_id"}, deleteCustomer)
}

func getTaskInformation(w *world, a args) (value, error) {
	id, field := a.get("task_id", vNone()), a.get("field", vNone())
	switch {
	case !pyval.Truthy(id):
		return vStr("Task ID not provided."), nil
	case !pyval.Truthy(field):
		return vStr("Field not provided."), nil
	}
	t := w.get(tTasks)
	for _, r := range t.Rows() {
		if !pyval.Equal(&r[tkID], &id) {
			continue
		}
		if err := pyval.CheckHashable(field); err != nil {
			return value{}, err
		}
		if isStr(field) {
			if c := t.Col(field.Str); c >= 0 {
				var o object
				o.add(field.Str, outValue(r[c]))
				return o.value(), nil
			}
		}
		return vStr("Field not found."), nil
	}
	return vStr("Task not found."), nil
}

// containsFilter narrows idx to the rows whose column c contains pattern
// (df[df[col].str.contains(pattern, case=False)]).
func containsFilter(t *table, idx []int, c int, pattern value) ([]int, error) {
	m, err := t.ColumnAt(c, idx).StrContains(pattern, false)
	if err != nil {
		return nil, err
	}
	keep, err := pandas.Mask(m)
	if err != nil {
		return nil, err
	}
	return rowsWhere(idx, keep), nil
}

func searchTasks(w *world, a args) (value, error) {
	name, email := a.get("task_name", vNone()), a.get("assigned_to_email", vNone())
	list, due, board := a.get("list_name", vNone()), a.get("due_date", vNone()), a.get("board", vNone())
	if !pyval.Truthy(name) && !pyval.Truthy(email) && !pyval.Truthy(list) && !pyval.Truthy(due) && !pyval.Truthy(board) {
		return vStr("No search parameters provided."), nil
	}
	if pyval.Truthy(email) {
		if !isStr(email) {
			return value{}, pycompat.TypeError("expected string or bytes-like object, got '" + pyval.TypeName(email) + "'")
		}
		if !taskEmailPattern.MatchString(email.Str) {
			return vStr("Invalid email format for assigned_to_email."), nil
		}
	}
	t := w.get(tTasks)
	idx := allRows(t)
	var err error
	if pyval.Truthy(name) {
		if idx, err = containsFilter(t, idx, tkName, name); err != nil {
			return value{}, err
		}
	}
	if pyval.Truthy(email) {
		low, err := t.ColumnAt(tkEmail, idx).StrLower()
		if err != nil {
			return value{}, err
		}
		want := vStr(pystr.Lower(email.Str))
		keep := make([]bool, len(low))
		for k := range low {
			keep[k] = pyval.Equal(&low[k], &want)
		}
		idx = rowsWhere(idx, keep)
	}
	for _, f := range []struct {
		v value
		c int
	}{{list, tkList}, {due, tkDue}, {board, tkBoard}} {
		if pyval.Truthy(f.v) {
			if idx, err = containsFilter(t, idx, f.c, f.v); err != nil {
				return value{}, err
			}
		}
	}
	return records(t, idx), nil
}

// isAssignee is `email in tasks["assigned_to_email"].str.lower().values`.
func isAssignee(t *table, email value) (bool, error) {
	k := t.Column(tkEmail)
	if err := k.CheckStr(); err != nil {
		return false, err
	}
	for i := range k.Len() {
		if v := k.At(i); isStr(v) && pyval.Equal(vStr(pystr.Lower(v.Str)), email) {
			return true, nil
		}
	}
	return false, nil
}

func createTask(w *world, a args) (value, error) {
	name, email := a.get("task_name", vNone()), a.get("assigned_to_email", vNone())
	list, due, board := a.get("list_name", vNone()), a.get("due_date", vNone()), a.get("board", vNone())
	if !pyval.Truthy(name) || !pyval.Truthy(email) || !pyval.Truthy(list) || !pyval.Truthy(due) || !pyval.Truthy(board) {
		return vStr("Missing task details."), nil
	}
	low, err := lowerValue(email)
	if err != nil {
		return value{}, err
	}
	t := w.get(tTasks)
	if ok, err := isAssignee(t, low); err != nil {
		return value{}, err
	} else if !ok {
		return vStr(msgAssignee), nil
	}
	if !inList(list, taskLists...) {
		return vStr(msgList), nil
	}
	if !inList(board, taskBoards...) {
		return vStr(msgBoard), nil
	}
	id, err := nextID(t.Column(tkID), true)
	if err != nil {
		return value{}, err
	}
	t = w.mut(tTasks)
	t.Append([]value{vStr(id), name, low, list, due, board}, 0)
	t.ResetIndex()
	return vStr(id), nil
}

func deleteTask(w *world, a args) (value, error) {
	id := a.get("task_id", vNone())
	if !pyval.Truthy(id) {
		return vStr("Task ID not provided."), nil
	}
	if !w.get(tTasks).Column(tkID).Contains(id) {
		return vStr("Task not found."), nil
	}
	t := w.mut(tTasks)
	t.Keep(func(i int) bool { return !pyval.Equal(&t.Row(i)[tkID], &id) })
	return vStr("Task deleted successfully."), nil
}

// setWhere sets column field (when it is a column) on every row whose id
// column equals id; found reports whether field is a column.
func setWhere(w *world, tab, idCol int, id value, field value, nv value) (bool, error) {
	if err := pyval.CheckHashable(field); err != nil {
		return false, err
	}
	if !isStr(field) {
		return false, nil
	}
	c := w.get(tab).Col(field.Str)
	if c < 0 {
		return false, nil
	}
	t := w.mut(tab)
	// The mask is computed before the assignment (updating the id column
	// itself included).
	m := make([]bool, t.Len())
	for i := range t.Rows() {
		m[i] = pyval.Equal(&t.Row(i)[idCol], &id)
	}
	for i, ok := range m {
		if ok {
			t.Set(i, c, nv)
		}
	}
	return true, nil
}

func updateTask(w *world, a args) (value, error) {
	id, field, nv := a.get("task_id", vNone()), a.get("field", vNone()), a.get("new_value", vNone())
	if !pyval.Truthy(id) || !pyval.Truthy(field) || !pyval.Truthy(nv) {
		return vStr("Task ID, field, or new value not provided."), nil
	}
	if inList(field, "assigned_to_email") {
		var err error
		if nv, err = lowerValue(nv); err != nil {
			return value{}, err
		}
	}
	if inList(field, "board") && !inList(nv, taskBoards...) {
		return vStr(msgBoard), nil
	}
	if inList(field, "list_name") && !inList(nv, taskLists...) {
		return vStr(msgList), nil
	}
	if inList(field, "assigned_to_email") {
		if ok, err := isAssignee(w.get(tTasks), nv); err != nil {
			return value{}, err
		} else if !ok {
			return vStr(msgAssignee), nil
		}
	}
	if !w.get(tTasks).Column(tkID).Contains(id) {
		return vStr("Task not found."), nil
	}
	ok, err := setWhere(w, tTasks, tkID, id, field, nv)
	if err != nil {
		return value{}, err
	}
	if !ok {
		return vStr("Field not valid."), nil
	}
	return vStr("Task updated successfully."), nil
}

// --- CRM ---

func searchCustomers(w *world, a args) (value, error) {
	regexFilters := []struct {
		name string
		col  int
	}{
		{"customer_name", crmName}, {"customer_email", crmEmail}, {"product_interest", crmProduct},
		{"status", crmStatus}, {"assigned_to_email", crmAssigned},
	}
	cmpFilters := []struct {
		name string
		col  int
		op   string
	}{
		{"last_contact_date_min", crmLastContact, ">="}, {"last_contact_date_max", crmLastContact, "<="},
		{"follow_up_by_min", crmFollowUp, ">="}, {"follow_up_by_max", crmFollowUp, "<="},
	}
	any := false
	for _, f := range regexFilters {
		any = any || pyval.Truthy(a.get(f.name, vNone()))
	}
	for _, f := range cmpFilters {
		any = any || pyval.Truthy(a.get(f.name, vNone()))
	}
	if !any {
		return vStr("No search parameters provided. Please provide at least one parameter."), nil
	}
	t := w.get(tCRM)
	idx := allRows(t)
	var err error
	for _, f := range regexFilters {
		if v := a.get(f.name, vNone()); pyval.Truthy(v) {
			if idx, err = containsFilter(t, idx, f.col, v); err != nil {
				return value{}, err
			}
		}
	}
	for _, f := range cmpFilters {
		if v := a.get(f.name, vNone()); pyval.Truthy(v) {
			m, err := t.ColumnAt(f.col, idx).Compare(f.op, v)
			if err != nil {
				return value{}, err
			}
			idx = rowsWhere(idx, m)
		}
	}
	page, pageSize := a.get("page", vInt(1)), a.get("page_size", vInt(5))
	pg, err := paginate(len(idx), page, pageSize)
	if err != nil {
		return value{}, err
	}
	if len(idx) == 0 {
		return vStr("No customers found."), nil
	}
	lo, hi, err := pg.slice(len(idx))
	if err != nil {
		return value{}, err
	}
	return pageObject("customers", records(t, idx[lo:hi]), "total_customers", len(idx), pg, pageSize), nil
}

func updateCustomer(w *world, a args) (value, error) {
	id, field, nv := a.get("customer_id", vNone()), a.get("field", vNone()), a.get("new_value", vNone())
	if !pyval.Truthy(id) || !pyval.Truthy(field) || !pyval.Truthy(nv) {
		return vStr("Customer ID, field, or new value not provided."), nil
	}
	if inList(field, "status") && !inList(nv, crmStatuses...) {
		return vStr("Status not valid. Please choose from: 'Qualified', 'Won', 'Lost', 'Lead', 'Proposal'"), nil
	}
	if inList(field, "product_interest") && !inList(nv, crmProducts...) {
		return vStr("Product interest not valid. Please choose from: 'Software', 'Hardware', 'Services', 'Consulting', 'Training'"), nil
	}
	if inList(field, "customer_email", "assigned_to_email") {
		var err error
		if nv, err = lowerValue(nv); err != nil {
			return value{}, err
		}
	}
	if !w.get(tCRM).Column(crmID).Contains(id) {
		return vStr("Customer not found."), nil
	}
	ok, err := setWhere(w, tCRM, crmID, id, field, nv)
	if err != nil {
		return value{}, err
	}
	if !ok {
		return vStr("Field not valid. Please choose from: 'customer_name', 'assigned_to_email', 'customer_email', 'customer_phone', 'last_contact_date', 'product_interest', 'status', 'notes', 'follow_up_by'"), nil
	}
	return vStr("Customer updated successfully."), nil
}

func addCustomer(w *world, a args) (value, error) {
	name, assigned, status := a.get("customer_name", vNone()), a.get("assigned_to_email", vNone()), a.get("status", vNone())
	if !pyval.Truthy(name) || !pyval.Truthy(assigned) || !pyval.Truthy(status) {
		return vStr("Please provide all required fields: customer_name, assigned_to_email, status."), nil
	}
	assigned, err := lowerValue(assigned)
	if err != nil {
		return value{}, err
	}
	email := a.get("customer_email", vNone())
	if pyval.Truthy(email) {
		if email, err = lowerValue(email); err != nil {
			return value{}, err
		}
	}
	t := w.get(tCRM)
	id, err := nextID(t.Column(crmID), true)
	if err != nil {
		return value{}, err
	}
	row := make([]value, len(t.Columns()))
	row[crmID] = vStr(id)
	row[crmAssigned] = assigned
	row[crmName] = name
	row[crmEmail] = email
	row[crmPhone] = a.get("customer_phone", vNone())
	row[crmLastContact] = a.get("last_contact_date", vNone())
	row[crmProduct] = a.get("product_interest", vNone())
	row[crmStatus] = status
	row[crmFollowUp] = a.get("follow_up_by", vNone())
	row[crmNotes] = a.get("notes", vStr(""))
	t = w.mut(tCRM)
	t.Append(row, 0)
	t.ResetIndex()
	return vStr(id), nil
}

func deleteCustomer(w *world, a args) (value, error) {
	id := a.get("customer_id", vNone())
	if !pyval.Truthy(id) {
		return vStr("Customer ID not provided."), nil
	}
	if !w.get(tCRM).Column(crmID).Contains(id) {
		return vStr("Customer not found."), nil
	}
	t := w.mut(tCRM)
	t.Keep(func(i int) bool { return !pyval.Equal(&t.Row(i)[crmID], &id) })
	return vStr("Customer deleted successfully."), nil
}
