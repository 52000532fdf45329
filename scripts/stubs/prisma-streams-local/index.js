'use strict';
throw new Error('`prisma dev` is not available in this project: its @prisma/streams-local is replaced by a stub (package.json overrides); use DATABASE_URL or the embedded PGlite instead');
