package routes

// The objects of the demo fixture (infra/demo-data/demo.json) that the samples name, for the tests
// that run on it and for the events of `sam local invoke`.
const (
	DemoOrganization = "1463dfec-18c0-58cd-9c54-03d6320cc136" // Acme: grace@example.com administers it
	DemoReport       = "8ae83b59-9621-58f7-ae8c-5a712269c424" // a report of Acme's with comments
	DemoComment      = "48112a08-fc94-5807-8dce-c005d12ceb9f" // a comment on it
	DemoInvitation   = "dd92a61d-d137-5059-b15b-6cf08719aa9c" // Acme's pending invitation to alan@example.com
)

// DemoValue fills the placeholders the demo fixture holds an object for (not those of what a request
// makes new: {n}, {new comment}, {new invitation}).
func DemoValue(name string) (string, bool) {
	v, ok := map[string]string{"organization": DemoOrganization, "report": DemoReport, "comment": DemoComment,
		"invitation": DemoInvitation, "staff email": "admin@example.com", "staff password": "demo-admin-2026"}[name]
	return v, ok
}

// DemoUsers are the demo fixture's users by the caller class the samples are sent as.
var DemoUsers = map[string]string{"staff": "admin@example.com", "administrator": "grace@example.com"}
