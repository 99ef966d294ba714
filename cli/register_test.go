package cli

// The tests serve the shipped environments; the cli package itself imports none.
import _ "github.com/gymkit/gymkit/servers/all"
