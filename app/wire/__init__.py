"""A socket's plumbing, the same for the table's socket (app.edge.ws) and the queue's
(app.edge.queue_api): the outgoing queue of one socket (outbox), the close codes (codes), the
server's transport kept within reach (transport), the frames that never reach the application
(frames) and the token bucket every limit on messages draws from (buckets)."""
