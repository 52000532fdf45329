/** The whiteboards' types, one a file; each registers the fields that answer it when imported. */
import './whiteboardDeleted.ts';
import './whiteboardItem.ts';
import './whiteboardVersion.ts';
import './whiteboardVersionRestored.ts';
