package workplace_test

// The observed outputs of spec section 9 ("Edge cases worth testing"), each
// block in a freshly seeded session. Both doors run this table: the HTTP door
// compares the 200 body, the MCP door the tools/call payload.

// step is one POST /<tool> with body and the exact 200 body expected.
// prefix marks want as a prefix of the body.
type step struct {
	tool, body, want string
	prefix           bool
}

type block struct {
	name  string
	steps []step
}

const (
	email436 = `{"email_id":"00000436","inbox/outbox":"inbox","sender/recipient":"raj.patel@atlas.com","subject":"Task Update on Add authentication for email notification","sent_datetime":"2023-11-30 15:34:33","body":"Dear Sam,\\n\\nCompleted task 'Add authentication for email notification' ahead of schedule. Please review and let me know if any tweaks are needed.\\n\\nBest,\\nRaj"}`
	demoArgs = `"event_name":"D","participant_email":"a@b.c","event_start":"2023-12-05 10:00:00"`
	taskArgs = `"task_name":"T","assigned_to_email":"leila.azizi@atlas.com","due_date":"d","board":"Design"`
)

var section9 = []block{
	{"1 directory without a name", []step{
		{tool: "company_directory_find_email_address", body: `{}`, want: `{"output":"Name not provided."}`},
		{tool: "company_directory_find_email_address", body: `{"name":null}`, want: `{"output":"Name not provided."}`},
	}},
	{"2 directory AISHA", []step{
		{tool: "company_directory_find_email_address", body: `{"name":"AISHA"}`, want: `{"output":["aisha.chen@atlas.com"]}`},
	}},
	{"3 directory regex anchor", []step{
		{tool: "company_directory_find_email_address", body: `{"name":"^a"}`, want: `{"output":["aisha.chen@atlas.com","anaya.patel@atlas.com","amir.ali@atlas.com","akira.sato@atlas.com"]}`},
	}},
	{"4 directory bad regex", []step{
		{tool: "company_directory_find_email_address", body: `{"name":"("}`, want: `{"output":"Error executing tool 'company_directory_find_email_address': missing ), unterminated subpattern at position 0"}`},
	}},
	{"5 directory int name", []step{
		{tool: "company_directory_find_email_address", body: `{"name":5}`, want: `{"output":"Error executing tool 'company_directory_find_email_address': 'int' object has no attribute 'lower'"}`},
	}},
	{"6 unknown tool", []step{
		{tool: "foo_bar", body: `{}`, want: `{"output":"Error executing tool 'foo_bar': 'foo_bar'"}`},
	}},
	{"7 unexpected keyword", []step{
		{tool: "email_search_emails", body: `{"foo":1}`, want: `{"output":"Error executing tool 'email_search_emails': EmailTool.search_emails() got an unexpected keyword argument 'foo'"}`},
	}},
	{"8 email information", []step{
		{tool: "email_get_email_information_by_id", body: `{"email_id":"00000057","field":"date"}`, want: `{"output":"Field 'date' not found. Available fields: email_id, inbox/outbox, sender/recipient, subject, sent_datetime, body"}`},
		{tool: "email_get_email_information_by_id", body: `{"email_id":"00000057","field":"subject"}`, want: `{"output":{"subject":"Task Update on Develop prototype for report generation"}}`},
		{tool: "email_get_email_information_by_id", body: `{"email_id":"57","field":"subject"}`, want: `{"output":"Email not found."}`},
	}},
	{"9 email search words and page clamp", []step{
		{tool: "email_search_emails", body: `{"query":"KOFI  wireframe","page":2,"page_size":2}`, want: `{"output":{"emails":[{"email_id":"00000259","inbox/outbox":"inbox","sender/recipient":"kofi.mensah@atlas.com","subject":"Task Update on Create wireframe for homepage","sent_datetime":"2023-11-22 15:22:52","body":"Hey Sam,\\n\\nStarting on 'Create wireframe for homepage' today. Any preliminary thoughts or resources you recommend before I dive in?\\n\\nThanks,\\nKofi"}],"pagination":{"total_emails":1,"page":1,"page_size":2,"total_pages":1}}}`},
	}},
	{"10 email search errors", []step{
		{tool: "email_search_emails", body: `{"query":"kofi","page_size":0}`, want: `{"output":"Error searching emails: integer division or modulo by zero"}`},
		{tool: "email_search_emails", body: `{"query":"xyzzy","page_size":0}`, want: `{"output":"Error searching emails: integer division or modulo by zero"}`},
		{tool: "email_search_emails", body: `{"query":"kofi","page":"2"}`, want: `{"output":"Error searching emails: '<' not supported between instances of 'int' and 'str'"}`},
		{tool: "email_search_emails", body: `{"query":"kofi","page":2.0}`, want: `{"output":"Error searching emails: slice indices must be integers or None or have an __index__ method"}`},
	}},
	{"11 email date bounds", []step{
		{tool: "email_search_emails", body: `{"date_min":"yesterday"}`, want: `{"output":"Error searching emails: Unknown datetime string format, unable to parse: yesterday"}`},
		{tool: "email_search_emails", body: `{"query":"xyzzy","date_min":"yesterday"}`, want: `{"output":"No emails found."}`},
		{tool: "email_search_emails", body: `{"date_max":"2023-13-01"}`, want: `{"output":"Error searching emails: month must be in 1..12: 2023-13-01"}`},
	}},
	{"12 sent emails first, unstable ties", []step{
		{tool: "email_send_email", body: `{"recipient":"Aisha.Chen@Atlas.com","subject":"Hi","body":"Body"}`, want: `{"output":"Email sent successfully."}`},
		{tool: "email_send_email", body: `{"recipient":"x@y.z","subject":"Second","body":"B2"}`, want: `{"output":"Email sent successfully."}`},
		{tool: "email_search_emails", body: `{"query":"","page_size":3}`, want: `{"output":{"emails":[{"email_id":"501","inbox/outbox":"outbox","sender/recipient":"x@y.z","subject":"Second","sent_datetime":"2023-11-30 23:59:00","body":"B2"},{"email_id":"500","inbox/outbox":"outbox","sender/recipient":"aisha.chen@atlas.com","subject":"Hi","sent_datetime":"2023-11-30 23:59:00","body":"Body"},` + email436 + `],"pagination":{"total_emails":502,"page":1,"page_size":3,"total_pages":168}}}`},
		{tool: "email_search_emails", body: `{"query":"outbox"}`, want: `{"output":"No emails found."}`},
	}},
	{"13 send validations", []step{
		{tool: "email_send_email", body: `{"recipient":"a@b","subject":"Hi","body":"B"}`, want: `{"output":"Invalid recipient email address."}`},
		{tool: "email_send_email", body: `{"recipient":"a@b.c","subject":"","body":"B"}`, want: `{"output":"Recipient, subject, or body not provided."}`},
		{tool: "email_send_email", body: `{"recipient":5,"subject":"s","body":"b"}`, want: `{"output":"Error executing tool 'email_send_email': argument of type 'int' is not iterable"}`},
	}},
	{"14 forward and reply", []step{
		{tool: "email_forward_email", body: `{"email_id":"00000057","recipient":"NIA.johnson@atlas.com"}`, want: `{"output":"Email forwarded successfully."}`},
		{tool: "email_reply_email", body: `{"email_id":"00000057","body":"Thanks"}`, want: `{"output":"Email replied successfully."}`},
		{tool: "email_search_emails", body: `{"query":"report generation","page_size":2}`, want: `{"output":{"emails":[{"email_id":"501","inbox/outbox":"outbox","sender/recipient":"carlos.rodriguez@atlas.com","subject":"RE: Task Update on Develop prototype for report generation","sent_datetime":"2023-11-30 23:59:00","body":"Thanks"},{"email_id":"500","inbox/outbox":"outbox","sender/recipient":"nia.johnson@atlas.com","subject":"FW: Task Update on Develop prototype for report generation","sent_datetime":"2023-11-30 23:59:00","body":"Sam,\\n\\nI've been assigned 'Develop prototype for report generation'. Excited to work on this and confident it will greatly improve our backend efficiency.\\n\\nCheers,\\nCarlos"}],"pagination":{"total_emails":22,"page":1,"page_size":2,"total_pages":11}}}`},
	}},
	{"15 delete email", []step{
		{tool: "email_delete_email", body: `{"email_id":"00000057"}`, want: `{"output":"Email deleted successfully."}`},
		{tool: "email_delete_email", body: `{"email_id":"00000057"}`, want: `{"output":"Email not found."}`},
		{tool: "email_delete_email", body: `{"email_id":57}`, want: `{"output":"Email not found."}`},
		{tool: "email_delete_email", body: `{}`, want: `{"output":"Email ID not provided."}`},
	}},
	{"16 event information", []step{
		{tool: "calendar_get_event_information_by_id", body: `{"event_id":252,"field":"event_name"}`, want: `{"output":"Invalid event ID format. Expected 8-digit ID."}`},
		{tool: "calendar_get_event_information_by_id", body: `{"event_id":"00000252","field":"name"}`, want: `{"output":"Invalid field. Available fields are: event_id, event_name, participant_email, event_start, duration"}`},
		{tool: "calendar_get_event_information_by_id", body: `{"event_id":"00000252","field":"event_name"}`, want: `{"output":{"event_name":"brainstorming session"}}`},
	}},
	{"17 event search case-insensitive", []step{
		{tool: "calendar_search_events", body: `{"query":"Sync Up","page_size":3}`, want: `{"output":{"events":[{"event_id":"00000016","event_name":"sync up","participant_email":"santiago.martinez@atlas.com","event_start":"2023-12-12 12:00:00","duration":"90"},{"event_id":"00000207","event_name":"sync up","participant_email":"aisha.chen@atlas.com","event_start":"2023-11-17 15:30:00","duration":"30"},{"event_id":"00000260","event_name":"sync up","participant_email":"akira.sato@atlas.com","event_start":"2023-11-15 13:30:00","duration":"120"}],"pagination":{"total_events":10,"page":1,"page_size":3,"total_pages":4}}}`},
	}},
	{"18 event search alternation and time_min", []step{
		{tool: "calendar_search_events", body: `{"query":"sync up|review","time_min":"2023-12-01","page_size":2}`, want: `{"output":{"events":[{"event_id":"00000016","event_name":"sync up","participant_email":"santiago.martinez@atlas.com","event_start":"2023-12-12 12:00:00","duration":"90"},{"event_id":"00000121","event_name":"Quarterly Sales Review","participant_email":"olga.petrova@atlas.com","event_start":"2023-12-07 10:30:00","duration":"90"}],"pagination":{"total_events":3,"page":1,"page_size":2,"total_pages":2}}}`},
	}},
	{"19 event search errors", []step{
		{tool: "calendar_search_events", body: `{"query":"["}`, want: `{"output":"Error executing tool 'calendar_search_events': unterminated character set at position 0"}`},
		{tool: "calendar_search_events", body: `{"time_max":"2023-02-30"}`, want: `{"output":"Invalid time_max format. Expected YYYY-MM-DD HH:MM:SS."}`},
		{tool: "calendar_search_events", body: `{"time_min":"2023-12-21T00:00:00Z"}`, want: `{"output":"Error executing tool 'calendar_search_events': Cannot compare tz-naive and tz-aware timestamps"}`},
		{tool: "calendar_search_events", body: `{"page_size":0}`, want: `{"output":"Error executing tool 'calendar_search_events': integer division or modulo by zero"}`},
		{tool: "calendar_search_events", body: `{"query":"xyzzy","page_size":0}`, want: `{"output":"No events found."}`},
	}},
	{"20 created events keep their values", []step{
		{tool: "calendar_create_event", body: `{"event_name":"Demo","participant_email":"Amir.Ali@atlas.com","event_start":"2023-12-05 10:00:00","duration":"60"}`, want: `{"output":"00000300"}`},
		{tool: "calendar_create_event", body: `{"event_name":"Demo2","participant_email":"x@y.z","event_start":"2023-12-05T10:00","duration":30}`, want: `{"output":"00000301"}`},
		{tool: "calendar_search_events", body: `{"query":"demo"}`, want: `{"output":{"events":[{"event_id":"00000300","event_name":"Demo","participant_email":"amir.ali@atlas.com","event_start":"2023-12-05 10:00:00","duration":"60"},{"event_id":"00000301","event_name":"Demo2","participant_email":"x@y.z","event_start":"2023-12-05T10:00","duration":30}],"pagination":{"total_events":2,"page":1,"page_size":5,"total_pages":1}}}`},
	}},
	{"21 create event validations", []step{
		{tool: "calendar_create_event", body: `{` + demoArgs + `,"duration":"0"}`, want: `{"output":"Duration must be a positive number of minutes."}`},
		{tool: "calendar_create_event", body: `{` + demoArgs + `,"duration":"1.5"}`, want: `{"output":"Invalid duration format. Expected a number of minutes."}`},
		{tool: "calendar_create_event", body: `{` + demoArgs + `,"duration":" 45 "}`, want: `{"output":"00000300"}`},
		{tool: "calendar_create_event", body: `{"event_name":"D","participant_email":"a@b.c","event_start":"not a date","duration":"30"}`, want: `{"output":"Invalid event_start format. Expected YYYY-MM-DD HH:MM:SS."}`},
		{tool: "calendar_create_event", body: `{"event_name":"D"}`, want: `{"output":"Participant email not provided."}`},
	}},
	{"22 update event", []step{
		{tool: "calendar_update_event", body: `{"event_id":"00000013","field":"participant_email","new_value":"A@B.C"}`, want: `{"output":"Event updated successfully."}`},
		{tool: "calendar_get_event_information_by_id", body: `{"event_id":"00000013","field":"participant_email"}`, want: `{"output":{"participant_email":"a@b.c"}}`},
		{tool: "calendar_update_event", body: `{"event_id":"00000013","field":"event_id","new_value":"1"}`, want: `{"output":"Invalid field. Available fields are: event_name, participant_email, event_start, duration"}`},
	}},
	{"23 visitor information", []step{
		{tool: "analytics_get_visitor_information_by_id", body: `{"visitor_id":"0419"}`, want: `{"output":[{"date_of_visit":"2023-09-27","visitor_id":"0419","page_views":"7","session_duration_seconds":"121","traffic_source":"social media","user_engaged":true},{"date_of_visit":"2023-10-22","visitor_id":"0419","page_views":"3","session_duration_seconds":"14","traffic_source":"direct","user_engaged":true}]}`},
		{tool: "analytics_get_visitor_information_by_id", body: `{"visitor_id":"419"}`, want: `{"output":"Visitor not found."}`},
	}},
	{"24 analytics counts", []step{
		{tool: "analytics_total_visits_count", body: `{"time_min":"2023-11-28","time_max":"2023-11-30"}`, want: `{"output":{"2023-11-28":19,"2023-11-29":9,"2023-11-30":7}}`},
		{tool: "analytics_engaged_users_count", body: `{"time_min":"2023-11-28","time_max":"2023-11-30"}`, want: `{"output":{"2023-11-28":8,"2023-11-29":4,"2023-11-30":4}}`},
		{tool: "analytics_traffic_source_count", body: `{"time_min":"2023-11-28","time_max":"2023-11-30","traffic_source":"referral"}`, want: `{"output":{"2023-11-28":0,"2023-11-29":0,"2023-11-30":1}}`},
		{tool: "analytics_get_average_session_duration", body: `{"time_min":"2023-11-28","time_max":"2023-11-30"}`, want: `{"output":{"2023-11-28":20.31578947368421,"2023-11-29":20.666666666666668,"2023-11-30":18.142857142857142}}`},
		{tool: "analytics_get_average_session_duration", body: `{"time_min":"2023-09-07","time_max":"2023-09-07"}`, want: `{"output":{"2023-09-07":20.0}}`},
		{tool: "analytics_total_visits_count", body: `{"time_min":"2023-11-30 00:00:00"}`, want: `{"output":{}}`},
	}},
	{"25 average duration converts the session's table", []step{
		{tool: "analytics_get_visitor_information_by_id", body: `{"visitor_id":"0860"}`, want: `{"output":[{"date_of_visit":"2023-10-22","visitor_id":"0860","page_views":"8","session_duration_seconds":"4","traffic_source":"referral","user_engaged":false}]}`},
		{tool: "analytics_get_average_session_duration", body: `{}`, want: `{"output":{"2023-09-01":11.5,`, prefix: true},
		{tool: "analytics_get_visitor_information_by_id", body: `{"visitor_id":"0860"}`, want: `{"output":[{"date_of_visit":"2023-10-22","visitor_id":"0860","page_views":"8","session_duration_seconds":4.0,"traffic_source":"referral","user_engaged":false}]}`},
	}},
	{"26 plots", []step{
		{tool: "analytics_create_plot", body: `{"time_min":5,"time_max":1.0,"value_to_plot":"total_visits","plot_type":"bar"}`, want: `{"output":"plots/5_1.0_total_visits_bar.png"}`},
		{tool: "analytics_create_plot", body: `{"time_min":"a","time_max":"b","value_to_plot":"total_visits","plot_type":"pie"}`, want: `{"output":"Plot type must be one of 'bar', 'line', 'scatter', or 'histogram'"}`},
	}},
	{"27 task search by name", []step{
		{tool: "project_management_search_tasks", body: `{"task_name":"carousel"}`, want: `{"output":[{"task_id":"00000149","task_name":"Add animation to carousel","assigned_to_email":"leila.azizi@atlas.com","list_name":"Backlog","due_date":"2023-11-27","board":"Front end"},{"task_id":"00000129","task_name":"Add animation to carousel","assigned_to_email":"nia.johnson@atlas.com","list_name":"Backlog","due_date":"2023-12-07","board":"Front end"},{"task_id":"00000123","task_name":"Add animation to carousel","assigned_to_email":"anaya.patel@atlas.com","list_name":"Backlog","due_date":"2023-12-08","board":"Front end"},{"task_id":"00000104","task_name":"Add animation to carousel","assigned_to_email":"chenwei.zhang@atlas.com","list_name":"Completed","due_date":"2023-12-08","board":"Front end"},{"task_id":"00000188","task_name":"Add animation to carousel","assigned_to_email":"santiago.martinez@atlas.com","list_name":"Backlog","due_date":"2023-12-08","board":"Front end"}]}`},
	}},
	{"28 task search edge cases", []step{
		{tool: "project_management_search_tasks", body: `{"assigned_to_email":"leila.azizi@atlas.com\n"}`, want: `{"output":[]}`},
		{tool: "project_management_search_tasks", body: `{"assigned_to_email":"bad"}`, want: `{"output":"Invalid email format for assigned_to_email."}`},
		{tool: "project_management_search_tasks", body: `{"assigned_to_email":5}`, want: `{"output":"Error executing tool 'project_management_search_tasks': expected string or bytes-like object, got 'int'"}`},
		{tool: "project_management_search_tasks", body: `{}`, want: `{"output":"No search parameters provided."}`},
	}},
	{"29 a non-numeric task id", []step{
		{tool: "project_management_update_task", body: `{"task_id":"00000149","field":"task_id","new_value":"abc"}`, want: `{"output":"Task updated successfully."}`},
		{tool: "project_management_create_task", body: `{` + taskArgs + `,"list_name":"Backlog"}`, want: `{"output":"Error executing tool 'project_management_create_task': invalid literal for int() with base 10: 'abc'"}`},
		{tool: "project_management_delete_task", body: `{"task_id":"abc"}`, want: `{"output":"Task deleted successfully."}`},
	}},
	{"30 create and update task validations", []step{
		{tool: "project_management_create_task", body: `{"task_name":"T","assigned_to_email":"LEILA.azizi@atlas.com","list_name":"Backlog","due_date":"d","board":"Design"}`, want: `{"output":"00000300"}`},
		{tool: "project_management_create_task", body: `{` + taskArgs + `,"list_name":"backlog"}`, want: `{"output":"List not valid. Please choose from: 'Backlog', 'In Progress', 'In Review', 'Completed'."}`},
		{tool: "project_management_update_task", body: `{"task_id":"00000149","field":"priority","new_value":"x"}`, want: `{"output":"Field not valid."}`},
	}},
	{"31 customer search needs a filter", []step{
		{tool: "customer_relationship_manager_search_customers", body: `{"page":3}`, want: `{"output":"No search parameters provided. Please provide at least one parameter."}`},
	}},
	{"32 customer search by name", []step{
		{tool: "customer_relationship_manager_search_customers", body: `{"customer_name":"casey","page_size":2}`, want: `{"output":{"customers":[{"customer_id":"00000074","assigned_to_email":"akira.sato@atlas.com","customer_name":"Casey Brown","customer_email":"casey.brown@biotech","customer_phone":"218-199-4846","last_contact_date":"2023-11-26 23:59:00","product_interest":"Services","status":"Proposal","follow_up_by":"2023-12-20 23:59:00","notes":"2023-10-25: Met in person. "},{"customer_id":"00000025","assigned_to_email":"sofia.santos@atlas.com","customer_name":"Casey Jackson","customer_email":"casey.jackson@biolinkhardware","customer_phone":null,"last_contact_date":"2023-11-22 23:59:00","product_interest":"Hardware","status":"Lead","follow_up_by":"2023-12-13 23:59:00","notes":"2023-10-20: On holiday. 2023-10-15: Had a call. "}],"pagination":{"total_customers":10,"page":1,"page_size":2,"total_pages":5}}}`},
	}},
	{"33 customer dates compare as strings", []step{
		{tool: "customer_relationship_manager_search_customers", body: `{"last_contact_date_max":"2023-10-01"}`, want: `{"output":"No customers found."}`},
		{tool: "customer_relationship_manager_search_customers", body: `{"last_contact_date_max":"2023-10-01 23:59:00","page_size":2}`, want: `{"output":{"customers":[{"customer_id":"00000192","assigned_to_email":"sofia.santos@atlas.com","customer_name":"Jordan Jackson","customer_email":"jordan.jackson@forcenetworks","customer_phone":"193-820-2559","last_contact_date":"2023-10-01 23:59:00","product_interest":"Software","status":"Qualified","follow_up_by":"2023-10-14 23:59:00","notes":"2023-10-05: On holiday. 2023-11-07: On holiday. 2023-11-03: Met in person. "}],"pagination":{"total_customers":1,"page":1,"page_size":2,"total_pages":1}}}`},
	}},
	{"34 added customer with missing cells", []step{
		{tool: "customer_relationship_manager_add_customer", body: `{"customer_name":"Dakota Thomas","assigned_to_email":"Nadia.Moreau@atlas.com","status":"Lead"}`, want: `{"output":"00000200"}`},
		{tool: "customer_relationship_manager_search_customers", body: `{"customer_name":"dakota thomas"}`, want: `{"output":{"customers":[{"customer_id":"00000068","assigned_to_email":"akira.sato@atlas.com","customer_name":"Dakota Thomas","customer_email":"dakota.thomas@forceanalytics","customer_phone":null,"last_contact_date":"2023-10-17 23:59:00","product_interest":"Software","status":"Won","follow_up_by":"2023-11-07 23:59:00","notes":"2023-10-13: Met in person. 2023-11-24: Met in person. "},{"customer_id":"00000200","assigned_to_email":"nadia.moreau@atlas.com","customer_name":"Dakota Thomas","customer_email":null,"customer_phone":null,"last_contact_date":null,"product_interest":null,"status":"Lead","follow_up_by":null,"notes":""}],"pagination":{"total_customers":2,"page":1,"page_size":5,"total_pages":1}}}`},
		{tool: "customer_relationship_manager_search_customers", body: `{"customer_email":"dakota"}`, want: `{"output":"Error executing tool 'customer_relationship_manager_search_customers': Cannot mask with non-boolean array containing NA / NaN values"}`},
		{tool: "customer_relationship_manager_search_customers", body: `{"product_interest":"Soft"}`, want: `{"output":"Error executing tool 'customer_relationship_manager_search_customers': Cannot mask with non-boolean array containing NA / NaN values"}`},
	}},
	{"35 update customer validations", []step{
		{tool: "customer_relationship_manager_update_customer", body: `{"customer_id":"99","field":"status","new_value":"x"}`, want: `{"output":"Status not valid. Please choose from: 'Qualified', 'Won', 'Lost', 'Lead', 'Proposal'"}`},
		{tool: "customer_relationship_manager_add_customer", body: `{"customer_name":"Dakota Thomas","assigned_to_email":"Nadia.Moreau@atlas.com","status":"Lead"}`, want: `{"output":"00000200"}`},
		{tool: "customer_relationship_manager_update_customer", body: `{"customer_id":"00000200","field":"phone","new_value":"1"}`, want: `{"output":"Field not valid. Please choose from: 'customer_name', 'assigned_to_email', 'customer_email', 'customer_phone', 'last_contact_date', 'product_interest', 'status', 'notes', 'follow_up_by'"}`},
	}},
}
