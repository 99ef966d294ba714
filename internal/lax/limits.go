package lax

// Bounds on error reports. pydantic collects every error item and FastAPI
// renders them all, each with its input: one bad item of NeMo's output union
// is 115 items, each repeating the item, so an unbounded report costs far
// more than its body (a 110 KB /verify body of 10,000 bad output items was
// 1.15 million items, a 157 MB answer and 3.4 GB of heap; one bad item
// holding a 1 MiB string, a 77 MB answer). gymkit keeps the report to the
// first items, in pydantic's order, and says so in a last item.
const (
	// MaxItems is the most error items a decode or a model validation
	// keeps beyond which it stops (it keeps MaxItems+1, to tell that there
	// were more), and the most a 422 renders.
	MaxItems = 1000
	// MaxRenderBytes bounds one rendering of a report: no item is added once
	// the rendering holds this many bytes (the first item is always
	// rendered whole).
	MaxRenderBytes = 4 << 20
	// TypeTooManyErrors is the type of the last item of a report that was
	// cut at MaxItems items or MaxRenderBytes bytes; it is gymkit's, not
	// pydantic's (Python would list every item).
	TypeTooManyErrors = "too_many_errors"
	msgTooManyErrors  = "Further errors not shown: gymkit reports at most 1000 error items and about 4 MiB of them"
)

// full reports whether items already holds more than MaxItems items: a
// decoder stops adding items and stops walking a failed container then.
func full(items []ErrorItem) bool { return len(items) > MaxItems }
