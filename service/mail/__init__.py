"""Layer 4, mail in: the SMTP receiver (``kurier mail-in``), an adapter beside HTTP and the
workers. Mail out and the reply jobs are rq jobs in workers/; what both share (reply addresses,
their signatures) is in service/common/."""
