package bad

func Undocumented() {}

// Helper does something, but the comment names another function.
func Documented() {}

// Documented2 is fine.
func Documented2() {}

// Deprecated: use Documented2.
func Old() {}

func unexported() {}

// A Thing is a type whose doc starts with an article; tagged_key is
// its Tagged field.
type Thing struct {
	Named   int // a line comment
	Unnamed int
	// Run starts a run of fields
	RunA int
	RunB int

	Alone     int
	Mentioned int `json:"mentioned_key"`
	Tagged    int `json:"tagged_key"`
	hidden    int
}

func (Thing) Method() {}

// Method2 is fine.
func (*Thing) Method2() {}

type thing struct{}

func (thing) Exported() {}

const Loose = 1

// Group covers its consts.
const (
	G1 = 1
	G2 = 2
)

const (
	P1 = 1 // line comment
	P2 = 2
)

type (
	// T1 is documented.
	T1 int
	T2 int
)

// Iface has two methods.
type Iface interface {
	// M1 is documented.
	M1()

	M2()
}

// One is a one-method interface: its doc is the method's.
type One interface{ Do() }

// Generic is generic.
type Generic[K comparable] struct{}

func (Generic[K]) Get() {}
