-- The mail outbox. A report's message is rendered once, whole (headers and
-- body, CRLF line ends), and stored here before any delivery is tried, so a
-- retry sends the very same bytes with the same Message-ID and Date.
--
-- status: queued (waiting for next_attempt), sending (an attempt is in
-- progress: set, and committed, just before the SMTP conversation), sent
-- (the server accepted it; recorded right after its final reply), failed
-- (a permanent refusal, or too many attempts: a person must look).
-- A row found in 'sending' by the holder of the scheduler lock belongs to a
-- process that died mid-attempt: it is queued again (at-least-once; the
-- unchanged Message-ID lets receivers recognise a duplicate).
CREATE TABLE outbox (
	id		INTEGER PRIMARY KEY,
	bisection	INTEGER REFERENCES bisections (id),
	message_id	TEXT NOT NULL UNIQUE,	-- without the angle brackets
	thread		TEXT NOT NULL,		-- reports about one commit
	sender		TEXT NOT NULL,		-- envelope MAIL FROM
	recipients	TEXT NOT NULL,		-- envelope RCPT TO, one a line
	message		TEXT NOT NULL,
	status		TEXT NOT NULL DEFAULT 'queued'
			CHECK (status IN ('queued', 'sending', 'sent', 'failed')),
	attempts	INTEGER NOT NULL DEFAULT 0,
	next_attempt	INTEGER NOT NULL,
	last_error	TEXT,
	created		INTEGER NOT NULL,
	sent		INTEGER
);
CREATE INDEX outbox_due ON outbox (next_attempt)
	WHERE status IN ('queued', 'sending');
CREATE INDEX outbox_thread ON outbox (thread, id);
CREATE INDEX outbox_bisection ON outbox (bisection);
