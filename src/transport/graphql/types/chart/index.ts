/** Chart layers and drawings over GraphQL, the calls and field names of /v1 (routes/chart.ts): one type a file. */
import './chartDrawing.ts';
import './chartDrawingResult.ts';
import './chartDrawingSyncResult.ts';
import './chartLayer.ts';
import './chartLayerChange.ts';
