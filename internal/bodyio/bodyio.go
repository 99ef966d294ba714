// Package bodyio reads request bodies into memory without io.ReadAll's
// overshoot: both doors (framework's HTTP routes, mcpexpose's POST /mcp)
// read a body with ReadAll.
//
//	raw, err := bodyio.ReadAll(r.Body, r.ContentLength)
package bodyio

import "io"

// step is the least a buffer grows by; a body with a Content-Length of at
// most step is read into one exact allocation.
const step = 64 << 10

// ReadAll reads r to its end, like io.ReadAll, into a buffer that starts at
// min(declared, 64 KiB) bytes (512 when declared < 0: unknown) and doubles,
// never beyond declared while the body is within it. So a body of n bytes
// that declares its length costs n bytes at the end, at most about 2n
// allocated in all and 1.5n at once while it is read (io.ReadAll's 1.25x
// steps allocate about 6.4n in all), and the buffer never runs more than
// twice ahead of the bytes received: a client that declares a large body
// and stalls holds little (the server's max_inflight_body_bytes reserves
// body bytes as they are read). A body longer than it declared (net/http
// never delivers one) is read on, growing by doubling. The error is the
// reader's (io.EOF excepted), with the bytes read so far.
func ReadAll(r io.Reader, declared int64) ([]byte, error) {
	size := 512
	if declared >= 0 {
		size = int(min(declared, step))
	}
	b := make([]byte, 0, max(size, 1))
	for {
		if len(b) == cap(b) {
			if declared >= 0 && int64(len(b)) == declared {
				// Exactly the declared length: look for the end
				// without growing the buffer.
				var one [1]byte
				n, err := r.Read(one[:])
				if n == 0 {
					if err == io.EOF {
						return b, nil
					}
					if err != nil {
						return b, err
					}
					continue
				}
				declared = -1 // longer than declared: grow as for an unknown length
				b = grow(b, len(b)+1, -1)
				b = append(b, one[0])
				if err == io.EOF {
					return b, nil
				}
				if err != nil {
					return b, err
				}
				continue
			}
			b = grow(b, len(b)+1, declared)
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// grow returns b with room for at least need bytes: twice its capacity (at
// least step more), capped at declared when that is known and enough.
func grow(b []byte, need int, declared int64) []byte {
	c := max(2*cap(b), cap(b)+step, need)
	if declared >= int64(need) && int64(c) > declared {
		c = int(declared)
	}
	nb := make([]byte, len(b), c)
	copy(nb, b)
	return nb
}
