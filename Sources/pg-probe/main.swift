import Shared

// make bench's PostgreSQL probe: a CGI program that makes one SELECT through the store's client.
PostgresProbe.main()
