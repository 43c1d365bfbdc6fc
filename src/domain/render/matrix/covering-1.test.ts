import { describeCoveringShare } from "../../../../test/fixtures/render/covering.ts";

describeCoveringShare(0, 2);
