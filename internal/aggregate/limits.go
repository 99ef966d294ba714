package aggregate

import (
	"strconv"

	"github.com/gymkit/gymkit/internal/pyjson"
)

// MaxStatEntries bounds the number of statistics entries ("mean/<field>",
// ...) one Compute call may produce: len(statNames) per (group, field present
// in the group) plus len(statNames) per field at agent level, counted before
// NaN entries are dropped.
//
// The computation is proportional to the present values, but the result can
// be much larger than the request: every (group, field) pair holds five
// entries and every field five more at agent level, about 115 bytes each in
// memory and 17 on the wire. A 16 MiB body of short keys present in every
// element (`"ab":1,`) asks for about 12 million entries; measured at 8
// million (1000 tasks x 1600 fields, 100000 x 16, ...: 13 to 16 MiB bodies),
// the result holds 0.9 to 1.1 GiB and its JSON is about 135 MB. Realistic
// requests stay well below the bound: a 16 MiB body of collector rows (a few
// hundred bytes and under ten numeric fields each) gives at most about 3
// million with one rollout per task, and proportionally fewer with more.
//
// This is a gymkit limit, not Python's. NeMo Gym answers such requests when
// it has the memory (its pandas frame is dense, rows x fields, so on wide
// sparse requests it runs out long before this bound: 100000 x 100000
// float64 is 80 GB, and numpy raises MemoryError when it cannot allocate it).
// Going over the bound gives the answer Python gives when memory runs out, a
// MemoryError, which the HTTP door turns into a 500 whose body is its repr.
const MaxStatEntries = 8 << 20

// statEntryLimit is MaxStatEntries; tests lower it.
var statEntryLimit int64 = MaxStatEntries

// checkOutputSize refuses a result of more than MaxStatEntries statistics:
// groupFields (group, present field) pairs plus fields at agent level.
func checkOutputSize(groupFields, fields int) error {
	n := int64(len(statNames)) * (int64(groupFields) + int64(fields))
	if n <= statEntryLimit {
		return nil
	}
	return pyErr("MemoryError", "aggregate_metrics would produce "+strconv.FormatInt(n, 10)+
		" statistics ("+strconv.Itoa(groupFields)+" (task, field) pairs and "+strconv.Itoa(fields)+
		" fields, 5 statistics each), more than the limit of "+strconv.FormatInt(statEntryLimit, 10))
}

// memberIndex looks keys up in an object's members: a linear scan for small
// objects, a map when the lookups would otherwise cost more than building it.
type memberIndex struct {
	members []pyjson.Member
	m       map[string]int
}

// newMemberIndex prepares lookups into members; probes is how many are
// expected.
func newMemberIndex(members []pyjson.Member, probes int) memberIndex {
	mi := memberIndex{members: members}
	if len(members) > 8 && probes > 8 {
		mi.m = make(map[string]int, len(members))
		for i, m := range members {
			mi.m[m.Key] = i
		}
	}
	return mi
}

// find returns the index of key in the members, or -1.
func (mi memberIndex) find(key string) int {
	if mi.m != nil {
		if i, ok := mi.m[key]; ok {
			return i
		}
		return -1
	}
	for i := range mi.members {
		if mi.members[i].Key == key {
			return i
		}
	}
	return -1
}
