export { extractDocx } from "./docx.ts";
export {
  type ExtractInput,
  Extractor,
  type ExtractorOptions,
  type FileErrorType,
  fileError,
} from "./extractor.ts";
export { extractHtml } from "./html.ts";
export { Ocr } from "./ocr.ts";
export { extractPdf } from "./pdf.ts";
export { extractPptx } from "./pptx.ts";
export { rasteriseSvg, svgTextLines } from "./svg.ts";
export type { VisionConfig } from "./vision.ts";
