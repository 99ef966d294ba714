package aggregate

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/gymkit/gymkit/framework/internal/pyjson"
)

// wideInput is n verify responses {"_ng_task_index":i,"_ng_rollout_index":0,
// "k<i>":1}: n groups, n columns, one present cell per column.
func wideInput(n int) []pyjson.Value {
	vrs := make([]pyjson.Value, n)
	for i := range vrs {
		vrs[i] = pyjson.ObjectValue(
			pyjson.Member{Key: TaskIndexKey, Value: intValue(int64(i))},
			pyjson.Member{Key: RolloutIndexKey, Value: intValue(0)},
			pyjson.Member{Key: "k" + strconv.Itoa(i), Value: intValue(1)},
		)
	}
	return vrs
}

func BenchmarkComputeWide(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		vrs := wideInput(n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Compute(vrs, Hooks{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
